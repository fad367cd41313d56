import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Claims to be someone else change nothing: the key a link's handshake
/// verified, not a hello's or a frame's fields or a datagram, says who is who.
@Suite(.realTime) struct SpoofingTests {
    /// Alice linked to Bob; Bob's link and announcement as Alice sees them.
    private func pair(_ alice: UInt64, _ bob: UInt64) async throws -> (TestNode, TestNode, Int) {
        let discoveryPort = TestNetwork.discoveryPort()
        var configuration = TestNetwork.configuration(discoveryPort: discoveryPort)
        configuration.beaconInterval = .seconds(1)
        let aliceNode = try await TestNode.started(alice, "alice", configuration: configuration)
        let bobNode = try await TestNode.started(bob, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([aliceNode, bobNode]) })
        try #require(await waitUntil { await aliceNode.service.announcementForTesting(bobNode.number) != nil })
        return (aliceNode, bobNode, discoveryPort)
    }

    /// Bob as Alice knows him: linked, named, announced where he listens.
    private func bobIsIntact(_ alice: TestNode, _ bob: TestNode) async -> Bool {
        let peers = await alice.service.connectedPeers()
        let announcement = await alice.service.announcementForTesting(bob.number)
        let (bobPort, bobInstance) = (await bob.service.listeningPort, await bob.service.instanceId)
        let untouched = !alice.log.events.contains {
            switch $0 {
            case .peerUpdated(let info): info.number == bob.number
            case .peerLeft(let number, _): number == bob.number
            default: false
            }
        }
        return peers.map(\.number) == [bob.number] && peers.first?.nickname == "bob"
            && peers.first?.instanceId == bobInstance
            && announcement?.instanceId == bobInstance && announcement?.endpoint == "127.0.0.1:\(bobPort)"
            && untouched
    }

    private func exchange(_ alice: TestNode, _ bob: TestNode, _ text: String) async -> Bool {
        guard await bob.service.broadcast(bob.publicMessage(text)) == 1 else { return false }
        return await alice.log.waitUntil { alice.receivedTexts.contains(text) }
    }

    @Test func aBeaconWithALinkedPeersIdentityFromAnotherAddressIsIgnored() async throws {
        let (alice, bob, discoveryPort) = try await pair(1_401, 1_402)
        let forger = BeaconSender(discoveryPort: discoveryPort)
        // Bob's number and instance id (both are in every beacon he sends),
        // another port, another name; then a leave in his name.
        var forged = DiscoveryBeacon(kind: .beacon, identity: TestNetwork.identity(1_402, "mallory"), tcpPort: 9,
                                     instanceId: await bob.service.instanceId)
        forger.send(forged)
        forged.kind = .leave
        forger.send(forged)
        #expect(await waitUntil { await alice.service.counters().beaconConflicts == 2 })
        // Bob's own beacons keep arriving meanwhile; nothing moved.
        #expect(await exchange(alice, bob, "still bob"))
        #expect(await bobIsIntact(alice, bob))
        // Bob's end of stream would not be taken for a leave.
        await bob.service.crashForTesting()
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(bob.number, .timedOut)) })
        await alice.service.stop()
    }

    @Test func aBeaconCannotRenameALinkedPeerNamesChangeOnlyOverTheLink() async throws {
        let (alice, bob, discoveryPort) = try await pair(1_409, 1_410)
        // From Bob's own address, with his port and instance id: everything
        // a datagram can show, and still only a datagram.
        let forger = BeaconSender(discoveryPort: discoveryPort)
        let forged = DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: bob.number, nickname: "mallory", stage: "evil"),
                                     tcpPort: await bob.service.listeningPort, instanceId: await bob.service.instanceId)
        forger.send(forged)
        // A marker beacon after it from the same socket: once Alice holds
        // it, the forged one was handled.
        let marker = NodeIdentity(number: NodeNumber(rawValue: 1_499)!, nickname: "marker")
        forger.send(DiscoveryBeacon(kind: .beacon, identity: marker, tcpPort: 9, instanceId: InstanceID.make()))
        try #require(await waitUntil { await alice.service.isAnnouncedForTesting(marker.number) })
        #expect(await bobIsIntact(alice, bob))
        // Bob's own rename arrives over his link.
        await bob.service.updateIdentity(NodeIdentity(number: bob.number, nickname: "robert"))
        #expect(await waitUntil { await alice.service.connectedPeers().first?.nickname == "robert" })
        await alice.service.stop()
        await bob.service.stop()
    }

    /// A leave datagram in Bob's name from his own address, port and
    /// instance (all in his beacons) changes nothing: before, it made
    /// Alice forget his announcement, and a later crash read as a clean
    /// leave, after which his instance was never redialled.
    @Test func aForgedLeaveDatagramChangesNothing() async throws {
        let (alice, bob, discoveryPort) = try await pair(1_411, 1_412)
        let forger = BeaconSender(discoveryPort: discoveryPort)
        forger.send(DiscoveryBeacon(kind: .leave, identity: bob.identity, tcpPort: await bob.service.listeningPort,
                                    instanceId: await bob.service.instanceId))
        // A marker from the same socket after it: once Alice holds it, the
        // leave was handled.
        let marker = NodeIdentity(number: NodeNumber(rawValue: 1_498)!, nickname: "marker")
        forger.send(DiscoveryBeacon(kind: .beacon, identity: marker, tcpPort: 9, instanceId: InstanceID.make()))
        try #require(await waitUntil { await alice.service.isAnnouncedForTesting(marker.number) })
        #expect(await alice.service.isAnnouncedForTesting(bob.number), "Bob's announcement is kept")
        #expect(await bobIsIntact(alice, bob))
        await bob.service.crashForTesting()
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(bob.number, .timedOut)) })
        #expect(!alice.log.contains(.peerLeft(bob.number, .left)), "a crash is not a clean leave")
        await alice.service.stop()
    }

    @Test func aBeaconFromAnotherInstanceOfALinkedNumberIsRefusedWhileTheLinkAnswers() async throws {
        let (alice, bob, discoveryPort) = try await pair(1_403, 1_404)
        let forger = BeaconSender(discoveryPort: discoveryPort)
        let forged = DiscoveryBeacon(kind: .beacon, identity: TestNetwork.identity(1_404, "mallory"), tcpPort: 9,
                                     instanceId: InstanceID.make())
        forger.send(forged)
        // Alice pings Bob's link; Bob answers, so the claim is refused.
        #expect(await waitUntil { await alice.service.counters().identityConflicts == 1 })
        #expect(await exchange(alice, bob, "still bob"))
        #expect(await bobIsIntact(alice, bob))
        #expect(await alice.service.counters().dialFailures == 0)
        await alice.service.stop()
        await bob.service.stop()
    }

    /// v1 let any hello state Bob's number; in v2 a number is derived from
    /// the key that signed the handshake, so a hello naming Bob's number
    /// under another key is refused outright (no ping of Bob's link is
    /// needed), and the claimant gets no acceptance record.
    @Test func aHelloWithALinkedPeersNumberUnderAnotherKeyIsRefused() async throws {
        let (alice, bob, _) = try await pair(1_405, 1_406)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 1_491, "mallory")
        var claim = raw.hello()
        claim.senderNumber = bob.number
        claim.senderNickname = "bob"
        try raw.sendMessage1()
        try await raw.awaitMessage2()
        try raw.sendMessage3(hello: claim)
        #expect(await waitUntil { raw.isClosed })
        #expect(raw.frames.isEmpty)   // never accepted
        #expect(await alice.service.counters().claimedNumbers == 1)
        #expect(await alice.service.counters().identityConflicts == 0)
        #expect(alice.log.joined(raw.number) == nil)
        #expect(await exchange(alice, bob, "still bob"))
        #expect(await bobIsIntact(alice, bob))
        await alice.service.stop()
        await bob.service.stop()
    }

    @Test func aFrameInAnotherPeersNameCutsTheLinkAndIsNotDelivered() async throws {
        let (alice, bob, _) = try await pair(1_407, 1_408)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 1_490, "mallory")
        try await raw.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        raw.send(raw.frame(.publicMessage, content: "I am bob", sender: bob.number))
        var direct = raw.frame(.directMessage, content: "me too", sender: bob.number)
        direct.targetNumber = alice.number
        raw.send(direct)
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().spoofed == 1)
        #expect(!alice.receivedTexts.contains("I am bob") && !alice.receivedTexts.contains("me too"))
        #expect(await exchange(alice, bob, "still bob"))
        #expect(await bobIsIntact(alice, bob))
        await alice.service.stop()
        await bob.service.stop()
    }
}
