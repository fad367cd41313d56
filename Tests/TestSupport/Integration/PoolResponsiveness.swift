/// Waits, before a wall-clock test starts, until the cooperative pool runs
/// a newly queued job promptly.
///
/// Why: `swift test` queues every pure test at once, and for the first
/// seconds of a run (5-13 s on 2 cores) a job queued behind them waits
/// that long for a thread. A wall-clock test that started then had its
/// actors starved of every turn, and a 20 s handshake deadline ran out
/// from the queue, not from the behaviour under test. The pure tests take
/// no notice of the wait; the wall-clock test starts once they are done.
public struct PoolResponsiveness: Sendable {
    /// A job that ran this late after it was queued counts as prompt.
    public var prompt: Duration = .milliseconds(25)
    /// Prompt jobs in a row that count as a responsive pool.
    public var inARow = 3
    /// The longest wait: a pool that stays slow (a loaded machine) still
    /// lets the test run, as before.
    public var limit: Duration = .seconds(90)

    public init() {}

    /// Returns once `inARow` probes in a row were prompt, or after `limit`.
    /// `probe` queues a job and returns how late it ran; every probe waits
    /// for its job, so the loop never spins and needs no sleep.
    /// Returns the number of probes taken.
    @discardableResult
    public func wait(probe: @Sendable () async -> Duration = PoolResponsiveness.lateness) async -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        var promptOnes = 0
        var probes = 0
        while promptOnes < inARow, clock.now < deadline {
            probes += 1
            promptOnes = await probe() <= prompt ? promptOnes + 1 : 0
        }
        return probes
    }

    /// How late a job queued on the global executor now starts.
    @Sendable public static func lateness() async -> Duration {
        let queued = ContinuousClock.now
        let started = await Task.detached { ContinuousClock.now }.value
        return started - queued
    }
}
