import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Discovery when many nodes start together (issue 29: 1,000 processes on
/// one host never formed), on the seeded simulation of every node's
/// `BeaconSchedule` and `NewcomerAnswers`: the broadcasts a newcomer costs
/// the LAN stay bounded as N grows, where before they grew with N, and a
/// single newcomer on a settled LAN still hears its first peers within a
/// second or two.
@Suite(.heavy) struct MassStartSimulationTests {
    /// Launched 20 a second (the bench's rate), run 30 s past the last start.
    private func massStart(_ nodes: Int, _ setup: MassStartSimulation.Setup = .init()) -> MassStartSimulation.Result {
        MassStartSimulation.massStart(nodes: nodes, launchRate: 20, duration: .seconds(Double(nodes) / 20 + 30),
                                      setup: setup, seed: 29)
    }

    @Test(arguments: [100, 1_000, 10_000])
    func aMassStartCostsTheLANABoundedNumberOfBroadcastsANode(nodes: Int) {
        let result = massStart(nodes)
        // The start burst (3), a turn or two, and a handful of answers each, whatever N.
        #expect(result.perNode < 8, "\(result)")
        #expect(Double(result.answers) / Double(nodes) < 3, "\(result)")
        // At 20 starts a second: the bursts' 60 a second and little more.
        #expect(result.peakPerSecond < 200, "\(result)")
        #expect(result.enoughPeersMax < 2, "\(result)")
    }

    @Test func beforeTheRulesAMassStartGrewWithN() {
        let small = massStart(100, MassStartSimulation.Setup.baseline)
        let large = massStart(1_000, MassStartSimulation.Setup.baseline)
        let now = massStart(1_000)
        // Every node asked answered (one broadcast per answer gap) and every newcomer turn sent.
        #expect(large.perNode > 2 * small.perNode, "\(small) \(large)")
        #expect(large.perNode > 3 * now.perNode, "\(large) \(now)")
    }

    @Test(arguments: [100, 1_000, 10_000])
    func aNewcomerOnASettledLANHearsPeersWithinASecondOrTwo(nodes: Int) {
        for seed in UInt64(1)...20 {
            let result = MassStartSimulation.join(nodes: nodes, seed: seed)
            #expect(result.firstPeerMax < 1, "seed \(seed): \(result)")
            #expect(result.enoughPeersMax < 2, "seed \(seed): \(result)")
            // Its burst, and a few answers, not one from every node.
            #expect(result.answers <= 12, "seed \(seed): \(result)")
        }
    }
}
