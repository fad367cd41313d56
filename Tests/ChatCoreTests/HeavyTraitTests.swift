import Foundation
import Testing
import TestSupport

/// `.heavy` moves a test's body off the cooperative pool (see `HeavyTrait`).
@Suite struct HeavyTraitTests {
    /// The name of the thread the caller runs on.
    static func threadName() -> String? { Thread.current.name }

    @Test(.heavy) func aHeavyBodyRunsOnTheHeavyThread() {
        #expect(Self.threadName() == "heavy tests")
    }

    @Test(.heavy) func anAsyncHeavyBodyComesBackToTheHeavyThreadAfterASuspension() async {
        await Task.yield()
        #expect(Self.threadName() == "heavy tests")
    }

    @Test func anOrdinaryBodyStaysOnThePool() {
        #expect(Self.threadName() != "heavy tests")
    }
}
