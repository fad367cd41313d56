import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// One link per pair, static peers, a shared discovery port, fast joins.
@Suite(.realTime) struct LinkRuleTests {
    /// How fast the join is, is the bench's mesh rows' to say; here the
    /// periodic beacon is too far off to be what linked Bob, so the start
    /// burst and the answers must have done it.
    @Test func aJoiningPeerConvergesWithoutWaitingForAPeriodicBeacon() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        // Long periodic beacons: only the start burst and the answers help.
        configuration.beaconInterval = .seconds(60)
        configuration.deadPeerTimeout = .seconds(180)
        let alice = try await TestNode.started(71, "alice", configuration: configuration)
        let carol = try await TestNode.started(73, "carol", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, carol]) })
        // Bob's number is between: he dials Carol and is dialled by Alice.
        let started = ContinuousClock.now
        let bob = try await TestNode.started(72, "bob", configuration: configuration)
        #expect(await waitUntil { await fullMesh([alice, bob, carol]) })
        #expect(ContinuousClock.now - started < configuration.beaconInterval / 2)
        for node in [alice, bob, carol] { await node.service.stop() }
    }

    @Test func twoServicesShareTheDiscoveryPort() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(81, "alice", configuration: configuration)
        let bob = try await TestNode.started(82, "bob", configuration: configuration)
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        #expect(await alice.service.counters().beaconsReceived > 0)
        #expect(await bob.service.counters().beaconsReceived > 0)
        #expect(await alice.service.listeningPort != bob.service.listeningPort)
        await alice.service.stop()
        await bob.service.stop()
    }

    /// Both sides dial each other at the same moment, many times over: each
    /// pair ends with one link, each side saw one join, frames flow.
    @Test(arguments: [(91, 92), (94, 93)] as [(UInt64, UInt64)])
    func bothDiallingAtOnceKeepsOneLink(numbers: (UInt64, UInt64)) async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.broadcastAddresses = []
        var duplicates = 0
        for round in 0..<5 {
            let alice = try await TestNode.started(numbers.0, "alice", configuration: configuration)
            let bob = try await TestNode.started(numbers.1, "bob", configuration: configuration)
            let (alicePort, bobPort) = (await alice.service.listeningPort, await bob.service.listeningPort)
            async let dialA: Void = alice.service.dialForTesting(port: bobPort)
            async let dialB: Void = bob.service.dialForTesting(port: alicePort)
            _ = await (dialA, dialB)
            #expect(await waitUntil { await fullMesh([alice, bob]) })
            let oneLinkEach = await waitUntil {
                let counts = (await alice.service.linkCountForTesting(), await bob.service.linkCountForTesting())
                return counts == (1, 1)
            }
            #expect(oneLinkEach, "round \(round)")
            #expect(await alice.service.send(alice.directMessage("a\(round)", to: bob.number), to: bob.number))
            #expect(await bob.service.send(bob.directMessage("b\(round)", to: alice.number), to: alice.number))
            #expect(await bob.log.waitUntil { bob.receivedTexts == ["a\(round)"] && alice.receivedTexts == ["b\(round)"] })
            for node in [alice, bob] {
                let joins = node.log.events.filter { if case .peerJoined = $0 { true } else { false } }
                let leaves = node.log.events.filter { if case .peerLeft = $0 { true } else { false } }
                #expect(joins.count == 1 && leaves.isEmpty, "round \(round): \(node.log.events)")
                duplicates += await node.service.counters().duplicateLinks
            }
            await alice.service.stop()
            await bob.service.stop()
        }
        // The dials did cross (else this test proves nothing).
        #expect(duplicates > 0)
    }

    @Test func staticPeersLinkWithoutBroadcast() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.broadcastAddresses = []
        let alice = try await TestNode.started(101, "alice", configuration: configuration)
        var bobConfiguration = configuration
        bobConfiguration.staticPeers = ["127.0.0.1:\(await alice.service.listeningPort)"]
        let bob = try await TestNode.started(102, "bob", configuration: bobConfiguration)
        var carolConfiguration = configuration
        carolConfiguration.staticPeers = ["localhost:\(await alice.service.listeningPort)"]
        let carol = try await TestNode.started(103, "carol", configuration: carolConfiguration)
        #expect(await waitUntil { await Set(alice.service.connectedPeers().map(\.number)) == [bob.number, carol.number] })
        #expect(await alice.service.counters().beaconsSent == 0)
        #expect(await alice.service.broadcast(alice.publicMessage("static hello")) == 2)
        #expect(await bob.log.waitUntil { bob.receivedTexts == ["static hello"] && carol.receivedTexts == ["static hello"] })
        for node in [alice, bob, carol] { await node.service.stop() }
    }

    @Test func aStaticPeerIsRedialledAfterItRestarts() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.broadcastAddresses = []
        let alicePort = TestNetwork.listenPort()
        configuration.listenPort = alicePort
        let alice = try await TestNode.started(111, "alice", configuration: configuration)
        var bobConfiguration = configuration
        bobConfiguration.listenPort = 0
        bobConfiguration.staticPeers = ["127.0.0.1:\(alicePort)"]
        let bob = try await TestNode.started(112, "bob", configuration: bobConfiguration)
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        await alice.service.crashForTesting()
        #expect(await bob.log.waitUntil { bob.log.contains(.peerLeft(alice.number, .timedOut)) })
        let alice2 = try await TestNode.started(111, "alice", configuration: configuration)
        let instance = await alice2.service.instanceId
        #expect(await bob.log.waitUntil { bob.log.joined(alice.number)?.instanceId == instance })
        await alice2.service.stop()
        await bob.service.stop()
    }

    @Test func aStaticPeerPointingAtItselfIsDroppedQuietly() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.broadcastAddresses = []
        configuration.listenPort = TestNetwork.listenPort()
        configuration.staticPeers = ["127.0.0.1:\(configuration.listenPort)"]
        let alice = try await TestNode.started(122, "alice", configuration: configuration)
        #expect(await waitUntil { await alice.service.staticPeerIsSelfForTesting(0) })
        #expect(await waitUntil { await alice.service.linkCountForTesting() == 0 })
        #expect(await alice.service.connectedPeers().isEmpty)
        #expect(alice.log.events.isEmpty)
        await alice.service.stop()
    }

    @Test func identityUpdatesReachLinkedPeers() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(131, "alice", configuration: configuration)
        let bob = try await TestNode.started(132, "bob", configuration: configuration)
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        await bob.service.updateIdentity(NodeIdentity(number: bob.number, nickname: "robert", stage: "ios"))
        #expect(await waitUntil {
            alice.log.events.contains { if case .peerUpdated(let info) = $0 { info.nickname == "robert" && info.stage == "ios" } else { false } }
        })
        #expect(await alice.service.connectedPeers().first?.nickname == "robert")
        await alice.service.stop()
        await bob.service.stop()
    }

    @Test func directFramesTravelOnlyToTheirTarget() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(141, "alice", configuration: configuration)
        let bob = try await TestNode.started(142, "bob", configuration: configuration)
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        let dm = alice.directMessage("for carol", to: NodeNumber(rawValue: 143)!)
        #expect(await alice.service.send(dm, to: bob.number) == false)
        #expect(await alice.service.broadcast(alice.directMessage("for bob", to: bob.number)) == 0)
        var forged = alice.publicMessage("forged")
        forged.senderNumber = bob.number
        #expect(await alice.service.broadcast(forged) == 0)
        #expect(await alice.service.send(alice.publicMessage("unlinked"), to: NodeNumber(rawValue: 999)!) == false)
        #expect(await alice.service.counters().framesSent > 0)
        await alice.service.stop()
        await bob.service.stop()
    }
}
