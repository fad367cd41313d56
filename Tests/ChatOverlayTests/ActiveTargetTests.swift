import ChatOverlay
import Testing

/// The active view's target: log2 of the LAN plus one, within the minimum
/// and one under the cap (`targetHeadroom`), so a view under its target
/// finds peers with room; a configuration whose cap is at or under the
/// minimum keeps its cap as the target.
@Suite struct ActiveTargetTests {
    @Test func theTargetStaysUnderTheCap() {
        let config = OverlayConfig()
        #expect(config.activeTarget(known: 1) == config.activeViewMin)
        #expect(config.activeTarget(known: 100) == 8)
        #expect(config.activeTarget(known: 300) == config.activeViewMax - 1)
        #expect(config.activeTarget(known: 1_000) == config.activeViewMax - 1)
        #expect(config.activeTarget(known: 100_000) == config.activeViewMax - 1)
    }

    @Test(arguments: [3, 4, 5])
    func aSmallCapIsTheTarget(cap: Int) {
        var config = OverlayConfig()
        config.activeViewMax = cap
        #expect(config.activeTarget(known: 1_000) == max(cap - 1, min(config.activeViewMin, cap)))
    }
}
