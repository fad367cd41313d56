import Testing
@testable import ChatApp

/// Free memory goes back to the system once after each burst of traffic,
/// when it has ended: not during it, not while little happens.
@Suite struct MemoryTrimPolicyTests {
    /// The decisions for the `stored` counter's value at successive ticks.
    static func decisions(_ counts: [Int], burst: Int = 2_000, quiet: Int = 100) -> [Bool] {
        var policy = MemoryTrimPolicy(burst: burst, quiet: quiet)
        return counts.map { policy.observe(stored: $0) }
    }

    @Test func aBurstIsTrimmedOnceWhenItEnds() {
        // Baseline, a flood over three ticks, then quiet ticks.
        #expect(Self.decisions([0, 5_000, 20_000, 40_000, 40_050, 40_060, 40_070])
            == [false, false, false, false, true, false, false])
    }

    @Test func steadyLightTrafficTrimsOnlyOnceItAddsUpToABurst() {
        // 90 a tick: always quiet, and 2,000 only after 23 ticks, then trimmed once.
        let counts = (0..<30).map { $0 * 90 }
        let trims = Self.decisions(counts).enumerated().filter(\.element).map(\.offset)
        #expect(trims == [23])
    }

    @Test func aStartWithAHistoryIsNotABurst() {
        // A node whose counter starts high (nothing was stored by this run yet).
        #expect(Self.decisions([0, 0, 0]) == [false, false, false])
        #expect(Self.decisions([500, 500, 600]) == [false, false, false])
    }

    @Test func theNextTrimNeedsANewBurst() {
        #expect(Self.decisions([0, 3_000, 3_000, 3_000, 6_000, 6_010])
            == [false, false, true, false, false, true])
    }

    @Test func releasingFreeMemoryWorksHere() {
        #expect(MemoryTrimmer.releaseFreeMemory(), "malloc_trim found in this process")
    }
}
