import Foundation

/// Where the core gets the time from. Injected everywhere so tests drive a
/// manual clock instead of sleeping.
///
/// Named `ChatClock` rather than `Clock` so it does not shadow the standard
/// library's `Clock` protocol.
public protocol ChatClock: Sendable {
    /// Wall-clock time, for timestamps people see and the store keeps.
    func now() -> Date
    /// Monotonic time from an arbitrary origin, for timeouts and intervals.
    func uptime() -> Duration
    /// Returns once `duration` of `uptime()` has passed; throws
    /// `CancellationError` if the task is cancelled first. Every timer of
    /// the node waits here, so a manual clock in tests moves them all.
    func sleep(for duration: Duration) async throws
    /// Returns once `uptime()` reaches `deadline` (at once if it has);
    /// throws `CancellationError` if the task is cancelled first. For a
    /// timer that keeps a schedule: its next tick is due at a fixed point,
    /// however long the last one took.
    func sleep(until deadline: Duration) async throws
}

extension ChatClock {
    /// A clock that can only wait for a duration waits for what is left.
    public func sleep(until deadline: Duration) async throws {
        try await sleep(for: deadline - uptime())
    }

    /// Wall-clock time in whole milliseconds since 1970, the wire's unit.
    public func nowMillis() -> Int64 { Timestamp.millis(from: now()) }
}

/// The real clock: `Date()` for wall time, `ContinuousClock` for uptime.
public struct SystemClock: ChatClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Date { Date() }

    public func uptime() -> Duration { ContinuousClock.now - origin }

    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }

    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}

/// Conversions between `Date` and the wire's millisecond timestamps.
public enum Timestamp {
    public static func millis(from date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    public static func date(fromMillis millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// Earliest timestamp a peer may send: 2000-01-01T00:00:00Z.
    public static let earliestAccepted: Int64 = 946_684_800_000
    /// Latest timestamp a peer may send: 9999-12-31T23:59:59Z. Anything past
    /// it is an absurd value, not a clock that is a little off.
    public static let latestAccepted: Int64 = 253_402_300_799_000
}
