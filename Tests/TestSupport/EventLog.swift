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
/// assertion: it polls the collected events until they match or time runs
/// out, and fails loudly then.
public final class EventLog<Event: Sendable>: Sendable {
    private let storage = Mutex<[Event]>([])
    private let finished = Mutex(false)

    public convenience init<Stream: AsyncSequence & Sendable>(_ stream: Stream) where Stream.Element == Event, Stream.Failure == Never {
        self.init(stream) { [$0] }
    }

    /// Logs each event `split` makes of one from `stream`, in order.
    public init<Stream: AsyncSequence & Sendable>(_ stream: Stream, splitting split: @escaping @Sendable (Event) -> [Event])
        where Stream.Element == Event, Stream.Failure == Never {
        Task { [self] in
            for await event in stream {
                let parts = split(event)
                storage.withLock { $0.append(contentsOf: parts) }
            }
            finished.withLock { $0 = true }
        }
    }

    /// Every event so far, in arrival order.
    public var events: [Event] { storage.withLock { $0 } }
    public var isFinished: Bool { finished.withLock { $0 } }

    /// Waits until some event satisfies `match`, returning the first such.
    @discardableResult
    public func first<T>(_ what: String = "event", within timeout: Duration? = nil, _ match: (Event) -> T?) async throws -> T {
        var budget = WaitBudget(within: timeout)
        while true {
            if let found = events.lazy.compactMap(match).first { return found }
            if budget.isSpent() { throw WaitTimeout(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until `condition` holds over all events so far.
    public func until(_ what: String = "condition", within timeout: Duration? = nil, _ condition: ([Event]) -> Bool) async throws {
        var budget = WaitBudget(within: timeout)
        while !condition(events) {
            if budget.isSpent() { throw WaitTimeout(what: what) }
            try await Task.sleep(for: .milliseconds(5))
        }
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

/// The one deadline-based wait of the test suite: polls `condition` every
/// 10 ms (hundreds of tests wait at once) until it holds or its budget is
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
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
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
