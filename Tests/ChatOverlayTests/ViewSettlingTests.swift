import ChatCore
import ChatOverlay
import Testing

/// Views settle and stay still: a declined peer is accepted when it asks
/// (MembershipRefusalTests), and that must not make a small overlay's
/// views swap back and forth for ever. The shape of
/// `DirectReachEndToEndTests`' seven nodes (threshold 3, views of 3, no
/// shuffles), on the simulator's manual clock.
@Suite struct ViewSettlingTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func sevenNodesWithViewsOfThreeSettleAndStayStill(seed: UInt64) {
        var config = SimulationConfig(seed: seed)
        config.overlay.fullMeshThreshold = 3
        config.overlay.fullMeshExit = 2
        config.overlay.activeViewMin = 3
        config.overlay.activeViewMax = 3
        config.overlay.shuffleInterval = .seconds(3_600)
        config.beaconInterval = .milliseconds(200)
        config.heardAtJoin = 7
        var sim = OverlaySimulation(config)
        sim.join(7, spacing: .milliseconds(30))
        var views: [[NodeNumber]] = []
        var lastChange = Duration.zero
        for _ in 0..<600 {
            sim.run(for: .milliseconds(100))
            let now = sim.aliveNodes.map { sim.overlay(of: $0)!.membership.activePeers }
            if now != views { views = now; lastChange = sim.now }
        }
        #expect(lastChange < .seconds(10), "views still changing at \(lastChange) of 60 s")
        for (node, view) in views.enumerated() {
            #expect(view.count >= 2 && view.count <= 3, "node \(node): \(view)")
            for peer in view {
                #expect(views[Int(peer.rawValue) - 1].contains(OverlaySimulation.number(node)), "links are mutual")
            }
        }
    }
}
