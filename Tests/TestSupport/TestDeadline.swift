/// How long a test waits for something that should happen before it
/// calls the test failed.
public enum TestDeadline {
    /// Generous on purpose: a passing wait returns as soon as its condition
    /// holds, so this bound costs nothing on success, and only a failure
    /// waits it out. Short bounds made tests fail on a busy machine (other
    /// jobs, a parallel `swift test`) for the machine's sake, not the code's.
    /// A test that asserts a time bound as behaviour names it with `within:`.
    public static let standard: Duration = .seconds(20)
    /// The most one poll of a standard wait counts. A parallel `swift test`
    /// on two busy cores leaves the pool to the pure tests for 40 s and
    /// more at the start; a waiter that was not run meanwhile (nor was the
    /// node it waits for) has not seen the code fail, so that time does
    /// not count against it.
    public static let stallCredit: Duration = .milliseconds(100)
}

/// The time a wait has used. A standard wait counts each poll's gap up to
/// `TestDeadline.stallCredit`, so only time in which the waiter itself ran
/// uses it up: on a quiet machine (polls 5-10 ms apart) that is the wall
/// clock. A bound named with `within:` is a behaviour and counts the wall
/// clock in full.
public struct WaitBudget: Sendable {
    public let limit: Duration
    /// Whether a long gap counts only `TestDeadline.stallCredit`.
    public let forgivesStalls: Bool
    public private(set) var used = Duration.zero
    private var last: ContinuousClock.Instant

    /// `within`: nil for the standard wait.
    public init(within: Duration?, from start: ContinuousClock.Instant = .now) {
        limit = within ?? TestDeadline.standard
        forgivesStalls = within == nil
        last = start
    }

    /// How long a wait on an event may sleep before it checks this budget
    /// again: what is left, and for a standard wait at most one stall
    /// credit (a longer sleep would count only that much).
    public var nextCheck: Duration {
        let left = max(limit - used, .milliseconds(1))
        return forgivesStalls ? min(left, TestDeadline.stallCredit) : left
    }

    /// Counts the time since the last poll; true once the budget is used up.
    public mutating func isSpent(at now: ContinuousClock.Instant = .now) -> Bool {
        let gap = now - last
        last = now
        used += forgivesStalls ? min(gap, TestDeadline.stallCredit) : gap
        return used >= limit
    }
}
