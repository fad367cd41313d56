import Foundation
import Synchronization

/// Counts arrivals of one awaited thing (a message text, an acknowledgement)
/// reported from nodes' event consumers, and wakes the waiter when the
/// expected number is in, with the time the last one arrived.
///
/// Timeouts are checked by one watchdog task every 50 ms, not by a timer
/// per wait: a timer task started with each measured message competed
/// with the nodes for the two cores inside the very interval it timed.
final class Arrivals: Sendable {
    private struct State {
        var key = ""
        var needed = 0
        var got = 0
        var completedAt: ContinuousClock.Instant?
        var lastAt: ContinuousClock.Instant?
        var waiter: CheckedContinuation<ContinuousClock.Instant?, Never>?
        var deadline: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let watchdog = Mutex<Task<Void, Never>?>(nil)

    init() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                guard let self else { return }
                self.expire(at: ContinuousClock.now)
            }
        }
        watchdog.withLock { $0 = task }
    }

    deinit { watchdog.withLock { $0?.cancel() } }

    /// Ends a wait whose deadline has passed (with nil).
    private func expire(at now: ContinuousClock.Instant) {
        let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
            guard let deadline = state.deadline, deadline <= now else { return nil }
            state.deadline = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Starts waiting for `count` arrivals of `key`; earlier counts are dropped.
    func expect(_ key: String, count: Int) {
        state.withLock { state in
            state = State(key: key, needed: count)
        }
    }

    /// One arrival of `key` (ignored unless it is the expected key, or the
    /// expected key is "*", which counts everything).
    func saw(_ key: String) {
        let now = ContinuousClock.now
        let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
            guard key == state.key || state.key == "*", state.completedAt == nil else { return nil }
            state.got += 1
            state.lastAt = now
            guard state.got >= state.needed else { return nil }
            state.completedAt = now
            state.deadline = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: now)
    }

    /// When the last expected arrival came, or nil after `timeout` (give
    /// or take the watchdog's 50 ms).
    func wait(timeout: Duration) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        return await withCheckedContinuation { continuation in
            let done = state.withLock { state -> ContinuousClock.Instant?? in
                if let at = state.completedAt { return .some(at) }
                state.waiter = continuation
                state.deadline = deadline
                return .none
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    var count: Int { state.withLock { $0.got } }

    /// When the latest counted arrival came (nil: none yet).
    var lastArrival: ContinuousClock.Instant? { state.withLock { $0.lastAt } }
}
