import ChatCore
import ChatOverlay
@testable import P2PTransport
import Testing
import TestSupport

/// What beacons tell the overlay, on a service that is never started (no
/// socket; dials and answers go nowhere) driven by hand on a manual clock:
/// every beacon heard again keeps its peer in the overlay's size estimate,
/// so a node above the threshold stays in bounded views however few links
/// it keeps. Before, only a peer's first beacons and its links counted,
/// the estimate shrank under the exit threshold a minute after the views
/// were bounded, and 100 real nodes flapped between a full mesh and
/// bounded views (thousands of link changes in 10 s of idling).
@Suite(.realTime) struct OverlayHearingTests {
    /// Threshold 8 (back to a full mesh under 6); peers forgotten after 60 s.
    private static func service(clock: ManualClock) -> P2PService {
        var configuration = P2PConfiguration()
        configuration.identityKey = TestNetwork.key(29_500)
        configuration.enableOverlay(fullMeshThreshold: 8)
        return P2PService(identity: TestNetwork.identity(29_500, "me"), configuration: configuration, clock: clock)
    }

    private static let peers = (1...12).map { TestNetwork.identity(29_500 + UInt64($0), "p\($0)") }

    /// Each peer's beacon, from its own loopback address (as on a LAN).
    private static func hearAll(_ service: P2PService) async {
        for (index, peer) in peers.enumerated() {
            let beacon = DiscoveryBeacon(kind: .beacon, identity: peer, tcpPort: 40_000 + index, instanceId: "i\(index)")
            await service.handleBeacon(beacon, from: IPv4Endpoint(address: 0x7F00_0100 + UInt32(index), port: 40_000 + index))
        }
    }

    private static func isFullMesh(_ service: P2PService) async -> Bool? {
        await service.overlayForTesting()?.isFullMesh
    }

    /// Every peer heard twice, 2 s apart: past the threshold (checked).
    private static func heardTwice(clock: ManualClock) async -> P2PService {
        let service = service(clock: clock)
        await hearAll(service)
        clock.advance(by: .seconds(2))
        await hearAll(service)
        #expect(await isFullMesh(service) == false)
        return service
    }

    @Test func beaconsHeardAgainTakeTheNodeAboveTheThreshold() async {
        let clock = ManualClock()
        let service = Self.service(clock: clock)
        await Self.hearAll(service)  // new: heard once, not yet counted
        #expect(await Self.isFullMesh(service) == true)
        clock.advance(by: .seconds(2))
        await Self.hearAll(service)  // heard again: 13 nodes known, over 8
        #expect(await Self.isFullMesh(service) == false)
    }

    @Test func peersStillBeaconingAreNotForgotten() async {
        let clock = ManualClock()
        let service = await Self.heardTwice(clock: clock)
        // Three lifetimes of beacons every 20 s with no link at all: the
        // overlay's ticks (expiry every 5 s) keep it in bounded views.
        for _ in 0..<9 {
            clock.advance(by: .seconds(20))
            await Self.hearAll(service)
            await service.tickOverlay()
            #expect(await Self.isFullMesh(service) == false)
        }
    }

    @Test func peersThatFallSilentAreForgottenAndTheMeshReturns() async {
        let clock = ManualClock()
        let service = await Self.heardTwice(clock: clock)
        // Nobody heard for over a lifetime: the estimate empties and the node is back in a full mesh.
        clock.advance(by: .seconds(70))
        await service.tickOverlay()
        #expect(await Self.isFullMesh(service) == true)
    }
}
