import Foundation
import Synchronization

/// Counts arrivals of one awaited thing (a message text, an acknowledgement)
/// reported from nodes' event consumers, and wakes the waiter when the
/// expected number is in, with the time the last one arrived.
final class Arrivals: Sendable {
    private struct State {
        var key = ""
        var needed = 0
        var got = 0
        var completedAt: ContinuousClock.Instant?
        var lastAt: ContinuousClock.Instant?
        var waiter: CheckedContinuation<ContinuousClock.Instant?, Never>?
        var generation = 0
    }

    private let state = Mutex(State())

    /// Starts waiting for `count` arrivals of `key`; earlier counts are dropped.
    func expect(_ key: String, count: Int) {
        state.withLock { state in
            state = State(key: key, needed: count, generation: state.generation + 1)
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
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: now)
    }

    /// When the last expected arrival came, or nil after `timeout`.
    func wait(timeout: Duration) async -> ContinuousClock.Instant? {
        let generation = state.withLock { $0.generation }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
                guard state.generation == generation else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let done = state.withLock { state -> ContinuousClock.Instant?? in
                if let at = state.completedAt { return .some(at) }
                state.waiter = continuation
                return .none
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    var count: Int { state.withLock { $0.got } }

    /// When the latest counted arrival came (nil: none yet).
    var lastArrival: ContinuousClock.Instant? { state.withLock { $0.lastAt } }
}
