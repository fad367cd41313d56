import Foundation
import Testing
import TestSupport

/// `.heavy` moves a test's body off the cooperative pool (see `HeavyTrait`).
@Suite struct HeavyTraitTests {
    /// The caller's thread, to say where a failing body ran.
    static func threadName() -> String? { Thread.current.name }

    @Test(.heavy) func aHeavyBodyRunsOnTheHeavyThread() {
        #expect(HeavyThread.isCurrent, "on \(Self.threadName() ?? "?")")
    }

    @Test(.heavy) func anAsyncHeavyBodyComesBackToTheHeavyThreadAfterASuspension() async {
        await Task.yield()
        #expect(HeavyThread.isCurrent, "on \(Self.threadName() ?? "?")")
    }

    @Test func anOrdinaryBodyStaysOnThePool() {
        #expect(!HeavyThread.isCurrent)
    }
}
