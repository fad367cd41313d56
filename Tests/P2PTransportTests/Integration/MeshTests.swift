import ChatCore
import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

@Suite(.realTime) struct MeshTests {
    @Test func threeServicesFormAMeshAndExchangeFrames() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(101, "alice", configuration: configuration)
        let bob = try await TestNode.started(202, "bob", configuration: configuration)
        let carol = try await TestNode.started(303, "carol", configuration: configuration)
        let nodes = [alice, bob, carol]

        #expect(await waitUntil { await fullMesh(nodes) })
        #expect(await alice.service.broadcast(alice.publicMessage("hi all")) == 2)
        #expect(await bob.log.waitUntil { bob.receivedTexts == ["hi all"] && carol.receivedTexts == ["hi all"] })

        #expect(await bob.service.send(bob.directMessage("psst", to: carol.number), to: carol.number))
        #expect(await carol.log.waitUntil { carol.receivedTexts.contains("psst") })
        #expect(!alice.receivedTexts.contains("psst"))
        for node in nodes { #expect(await node.service.linkCountForTesting() == 2) }
        // Each peer is known by the key its handshake proved.
        let bobAtAlice = try #require(await alice.service.connectedPeers().first { $0.number == bob.number })
        let bobKey = TestNetwork.key(bob.seed).publicKey
        #expect(bobAtAlice.fingerprint == bobKey.fingerprint)
        #expect(bobAtAlice.identityKey == Data(bobKey.rawValue).base64EncodedString())
        #expect(bob.number == bobKey.nodeNumber)
        for node in nodes { await node.service.stop() }
    }

    /// Six nodes started at once: every pair ends with one link and no node
    /// sees a peer join twice or leave.
    @Test func sixNodesStartedTogetherLinkOncePerPair() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        // This test is about one link per pair, not liveness: on a busy
        // 2-core machine running the whole suite, a 1 s dead-peer timeout
        // cut a starved (but alive) node's links and counted a second join.
        configuration.deadPeerTimeout = .seconds(10)
        configuration.handshakeTimeout = .seconds(10)
        let nodes = (1...6).map { TestNode(UInt64(600 + $0 * 7 % 6), "n\($0)", configuration: configuration) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes { group.addTask { try await node.service.start() } }
            try await group.waitForAll()
        }
        #expect(await waitUntil { await fullMesh(nodes) })
        for node in nodes {
            #expect(await waitUntil { await node.service.linkCountForTesting() == 5 })
            // The log trails the service by a task hop; wait for it too.
            let joins = { node.log.events.filter { if case .peerJoined = $0 { true } else { false } } }
            #expect(await waitUntil { joins().count >= 5 })
            let leaves = node.log.events.filter { if case .peerLeft = $0 { true } else { false } }
            #expect(joins().count == 5 && leaves.isEmpty, "\(node.number): \(node.log.events)")
        }
        let frame = nodes[0].publicMessage("to everyone")
        #expect(await nodes[0].service.broadcast(frame) == 5)
        #expect(await waitUntil { nodes.dropFirst().allSatisfy { $0.receivedTexts == ["to everyone"] } })
        for node in nodes { await node.service.stop() }
    }
}
