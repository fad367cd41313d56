import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// `heardPeers()`: who else is on the LAN by beacons alone (what `/peers`
/// lists beside the links when the overlay keeps only a few). A number
/// heard twice is listed with what its beacons say; one heard once is not;
/// a linked peer is not (it is listed as linked); a silent one goes.
@Suite(.realTime) struct HeardPeersTests {
    @Test func aPeerHeardTwiceIsListedUntilItFallsSilentLinkedPeersAreNot() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        var configuration = TestNetwork.configuration(discoveryPort: discoveryPort)
        configuration.beaconInterval = .seconds(1)
        let alice = try await TestNode.started(1_601, "alice", configuration: configuration)
        let bob = try await TestNode.started(1_602, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, bob]) })

        // Nobody listens on TCP port 9: Alice's dials fail, so these stay heard, not linked.
        let sender = BeaconSender(discoveryPort: discoveryPort)
        let ghost = DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: 1_699)!, nickname: "ghost", stage: "night"),
                                    tcpPort: 9, instanceId: InstanceID.make())
        let flash = DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: 1_698)!, nickname: "flash"),
                                    tcpPort: 9, instanceId: InstanceID.make())
        sender.send(flash)
        sender.send(ghost)
        try #require(await waitUntil { await alice.service.isAnnouncedForTesting(ghost.number) })
        #expect(await alice.service.heardPeers().isEmpty, "a beacon heard once lists nobody")

        sender.send(ghost)
        #expect(await waitUntil { await alice.service.heardPeers().map(\.number) == [ghost.number] })
        let heard = try #require(await alice.service.heardPeers().first)
        #expect(heard.nickname == "ghost" && heard.stage == "night" && heard.address == "127.0.0.1:9")
        #expect(heard.instanceId == ghost.instanceId && heard.identityKey == nil && heard.fingerprint == nil)
        // Bob's beacons arrive too, but he is linked: listed by connectedPeers only.
        #expect(await alice.service.connectedPeers().map(\.number) == [bob.number])

        // Silent, the ghost goes with its announcement (the dead-peer timeout).
        #expect(await waitUntil("the ghost forgotten", within: .seconds(15)) { await alice.service.heardPeers().isEmpty })
        await alice.service.stop()
        await bob.service.stop()
    }
}
