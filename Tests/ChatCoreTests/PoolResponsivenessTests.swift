import Synchronization
import Testing
import TestSupport

/// The wait before a wall-clock test (see `PoolResponsiveness`).
@Suite struct PoolResponsivenessTests {
    /// Probes answered from a script, in order; how many were taken.
    final class Script: Sendable {
        let remaining: Mutex<[Duration]>
        init(_ lateness: [Duration]) { remaining = Mutex(lateness) }
        func next() -> Duration { remaining.withLock { $0.removeFirst() } }
        var left: Int { remaining.withLock { $0.count } }
    }

    @Test func itReturnsAfterThreePromptJobsInARow() async {
        let script = Script([.milliseconds(900), .milliseconds(5), .milliseconds(5), .milliseconds(40),
                             .milliseconds(5), .milliseconds(1), .milliseconds(25), .seconds(9)])
        let probes = await PoolResponsiveness().wait { script.next() }
        #expect(probes == 7)
        #expect(script.left == 1)
    }

    @Test func aPoolThatStaysSlowStillLetsTheTestRunAtTheLimit() async {
        var responsiveness = PoolResponsiveness()
        responsiveness.limit = .zero
        let probes = await responsiveness.wait { .seconds(9) }
        #expect(probes == 0)
    }
}
