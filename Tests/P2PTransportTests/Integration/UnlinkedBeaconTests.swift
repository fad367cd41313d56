import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Beacons alone, with no link, keep the overlay told: an unlinked peer
/// heard again and again is a known peer and a candidate for the views.
/// Only a peer's first beacon and linked peers' beacons reached it once, so
/// a peer the views had given up on (a failed dial, a partition) was never
/// taken back: after a cable was out, the LAN stayed two overlays
/// (`lan-test.sh --overlay`, partition).
@Suite(.realTime) struct UnlinkedBeaconTests {
    @Test func repeatedBeaconsOfAnUnlinkedPeerReachTheOverlay() async throws {
        let port = TestNetwork.discoveryPort()
        // Alone, alice knows one node (herself): under a threshold of 2.
        let alice = try await TestNode.started(7_301, "alice", configuration: OverlayLinkTests.configuration(port: port, threshold: 2))
        defer { Task { await alice.service.stop() } }
        #expect(await alice.service.overlayForTesting()?.isFullMesh == true)

        // Nobody listens on TCP port 9: the ghost is heard, never linked.
        let sender = BeaconSender(discoveryPort: port)
        let ghost = DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: 7_399)!, nickname: "ghost"),
                                    tcpPort: 9, instanceId: InstanceID.make())
        sender.send(ghost)
        try #require(await waitUntil { await alice.service.isAnnouncedForTesting(ghost.number) })
        // Heard once: not counted (a flood's inventions are heard once).
        #expect(await alice.service.overlayForTesting()?.isFullMesh == true)
        // Heard again (the same instance: nothing new to dial or answer): two known, past the threshold.
        sender.send(ghost)
        #expect(await waitUntil("the overlay counts the ghost") { await alice.service.overlayForTesting()?.isFullMesh == false })
    }
}
