import ChatCore
import ChatOverlay
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// A link on demand (dialled for DMs) becomes an overlay link, in place,
/// when the node at one end has an empty view and asks for it: a node
/// whose neighbours are all gone, or one that comes back to peers already
/// dialling it for the DMs they hold (lan-test clock-skew: the restarted
/// node had only such links and its view stayed empty, so it got no gossip
/// and no catch-up).
@Suite(.realTime) struct OnDemandPromotionTests {
    @Test func aLinkOnDemandJoinsTheOverlayWhenTheViewEmpties() async throws {
        let port = TestNetwork.discoveryPort()
        let nodes = try await DirectReachLinkTests.started(7, base: 7_900, configuration: DirectReachLinkTests.configuration(port: port),
                                                           connected: false)
        defer { Task { for node in nodes { await node.service.stop() } } }
        let alice = try await DirectReachLinkTests.withFullView(among: nodes)
        let bob = try await DirectReachLinkTests.linkedOnDemand(from: alice, among: nodes)
        #expect(await alice.service.overlayForTesting()?.active.contains(bob.number) == false)
        // Everyone else leaves: alice's view empties, and the one peer left is linked on demand.
        for node in nodes where node !== alice && node !== bob { await node.service.stop() }
        var last = ""
        let promoted = await waitUntil("bob in alice's view over an overlay link", within: .seconds(40)) {
            let aliceView = await alice.service.overlayForTesting()?.active ?? []
            let bobView = await bob.service.overlayForTesting()?.active ?? []
            let aliceEnd = await alice.service.onDemandForTesting(bob.number)
            let bobEnd = await bob.service.onDemandForTesting(alice.number)
            last = "alice's view \(aliceView), bob's \(bobView), on demand at alice \(String(describing: aliceEnd)), at bob \(String(describing: bobEnd))"
            return aliceView.contains(bob.number) && bobView.contains(alice.number) && aliceEnd == false && bobEnd == false
        }
        #expect(promoted, "\(last)")
        #expect(await alice.service.speaksOverlayForTesting(bob.number) == true)
        #expect(await bob.service.speaksOverlayForTesting(alice.number) == true)
        // Overlay frames cross it now: a public message by gossip reaches bob.
        let message = OverlayLinkTests.signed("over the promoted link", by: alice)
        _ = await alice.service.broadcast(message)
        _ = try await bob.log.first("the gossiped message at bob") {
            if case .received(let p, _) = $0, p.messageId == message.messageId { p } else { nil }
        }
    }
}
