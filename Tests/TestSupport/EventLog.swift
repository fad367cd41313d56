import ChatCore
import Foundation
import Synchronization

/// Why a wait ended without the expected event.
public struct WaitTimeout: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Collects events from an `AsyncStream` in the background so a test can
/// wait, with a deadline, for one that matches. Waiting never sleeps as an
/// assertion: a wait resumes when an event arrives (`ChangeSignal`) and
/// checks again, until the events match or time runs out, and fails
/// loudly then.
public final class EventLog<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var finished = false
    }
    private let storage = Mutex(State())
    private let changes = ChangeSignal()

    public convenience init<Stream: AsyncSequence & Sendable>(_ stream: Stream) where Stream.Element == Event, Stream.Failure == Never {
        self.init(stream) { [$0] }
    }

    /// Logs each event `split` makes of one from `stream`, in order.
    public init<Stream: AsyncSequence & Sendable>(_ stream: Stream, splitting split: @escaping @Sendable (Event) -> [Event])
        where Stream.Element == Event, Stream.Failure == Never {
        Task { [self] in
            for await event in stream {
                let parts = split(event)
                storage.withLock { $0.events.append(contentsOf: parts) }
                changes.notify()
            }
            storage.withLock { $0.finished = true }
            changes.notify()
        }
    }

    /// Every event so far, in arrival order.
    public var events: [Event] { storage.withLock { $0.events } }
    public var isFinished: Bool { storage.withLock { $0.finished } }

    /// Waits until some event satisfies `match`, returning the first such.
    /// Each event is matched once, as it arrives.
    @discardableResult
    public func first<T>(_ what: String = "event", within timeout: Duration? = nil, _ match: (Event) -> T?) async throws -> T {
        var budget = WaitBudget(within: timeout)
        var checked = 0
        while true {
            let generation = changes.generation
            let fresh = storage.withLock { state -> [Event] in
                defer { checked = state.events.count }
                return Array(state.events[checked...])
            }
            if let found = fresh.lazy.compactMap(match).first { return found }
            if budget.isSpent() { throw WaitTimeout(what: what) }
            await changes.wait(after: generation, for: budget.nextCheck)
            try Task.checkCancellation()
        }
    }

    /// `first`, for work whose length is the machine's, not the code's (a
    /// thousand peers' keys, signatures and commits on a host whose cores
    /// other jobs hold): the standard deadline runs from the last event
    /// logged, not from the start, so it fails once events stop coming
    /// (the node stuck), or after `limit` in all.
    @discardableResult
    public func first<T>(_ what: String, whileEventsArrive limit: Duration, _ match: (Event) -> T?) async throws -> T {
        let started = ContinuousClock.now
        var seen = events.count
        while true {
            do {
                return try await first(what, match)
            } catch let timeout as WaitTimeout {
                let count = events.count
                guard count > seen, ContinuousClock.now - started < limit else { throw timeout }
                seen = count
            }
        }
    }

    /// Waits until `condition` holds over all events so far (checked
    /// again as events arrive).
    public func until(_ what: String = "condition", within timeout: Duration? = nil, _ condition: ([Event]) -> Bool) async throws {
        guard await waitUntil(what, within: timeout, { condition(events) }) else {
            try Task.checkCancellation()
            throw WaitTimeout(what: what)
        }
    }

    /// `waitUntil` for a condition on this log: `condition` is checked as
    /// events arrive (and when the deadline is checked), not polled.
    /// Returns whether it held in time; callers assert on the result.
    public func waitUntil(_ what: String = "condition", within timeout: Duration? = nil, _ condition: () -> Bool) async -> Bool {
        await changes.waitUntil(what, within: timeout, condition)
    }
}

extension EventLog where Event: Equatable {
    public func contains(_ event: Event) -> Bool { events.contains(event) }
}

extension EventLog where Event == TransportEvent {
    /// The latest join announced for `number`, if any.
    public func joined(_ number: NodeNumber) -> PeerInfo? {
        events.lazy.compactMap { if case .peerJoined(let info) = $0, info.number == number { info } else { nil } }.last
    }
}

/// The deadline-based wait for a condition with no event to wait on (an
/// actor's state, a file): polls `condition` every 10 ms (hundreds of
/// tests wait at once) until it holds or its budget is
/// used up (`WaitBudget`: the standard deadline, stalls forgiven, or the
/// wall-clock bound named with `within:`), and returns whether it held. A
/// wait is never an assertion by itself: callers assert on the result
/// (`#expect(await waitUntil { ... })`, `try #require(await waitUntil(...))`).
/// `what` names the condition for readers of the test. Not discardable:
/// an ignored result would be a wait that asserts nothing.
public func waitUntil(_ what: String = "condition", within timeout: Duration? = nil,
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    var budget = WaitBudget(within: timeout)
    while !budget.isSpent() {
        if try await condition() { return true }
        // The poll's interval, not an assertion: real sockets and processes
        // (Integration tests) have no event to await; pure tests wait on
        // `ChangeSignal` or the manual clock.
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

/// `waitUntil` for work whose length is the machine's, not the code's
/// (a thousand messages' signatures and commits on a host whose cores
/// other jobs hold): the standard deadline runs from the last time
/// `progress` grew, not from the start, so the wait fails once progress
/// stops (the node stuck), or after `limit` in all.
public func waitUntil(_ what: String, progress: () async throws -> Int, limit: Duration,
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    let started = ContinuousClock.now
    var seen = try await progress()
    while true {
        if try await waitUntil(what, condition) { return true }
        let now = try await progress()
        guard now > seen, ContinuousClock.now - started < limit else { return false }
        seen = now
    }
}

extension EventLog where Event == TransportEvent {
    /// A transport's events with each batch of frames logged as one
    /// `.received` per frame, so tests match frames one by one.
    public convenience init(frames stream: EventChannel<TransportEvent>) {
        self.init(stream) { event in
            guard case .receivedFrames(let frames, let peer) = event else { return [event] }
            return frames.map { .received($0, from: peer) }
        }
    }
}
