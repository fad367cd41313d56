import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Whole nodes (ChatNode on real services, stores in memory) above the
/// overlay's threshold (3): a DM to a peer outside the node's view is
/// stored there and acknowledged, the outbox working as for a linked
/// peer, over a link dialled on demand, or sealed through relays when
/// dials are off; beside them a node without the overlay is DMed as before.
@Suite(.realTime) struct DirectReachEndToEndTests {
    struct Peer {
        let node: ChatNode
        let service: P2PService
        let store: ChatStore
        let number: NodeNumber
    }

    static func configuration(port: Int, overlay: Bool = true, dials: Bool = true) -> P2PConfiguration {
        var configuration = P2PConfiguration()
        configuration.discoveryPort = port
        configuration.broadcastAddresses = ["127.255.255.255"]
        configuration.beaconInterval = .milliseconds(200)
        configuration.handshakeTimeout = .seconds(2)
        configuration.keepaliveInterval = .milliseconds(300)
        configuration.deadPeerTimeout = .seconds(2)
        configuration.writeTimeout = .seconds(1)
        configuration.reconnectDelay = .milliseconds(100)
        configuration.maxReconnectDelay = .seconds(1)
        guard overlay else { return configuration }
        configuration.enableOverlay(fullMeshThreshold: 3)
        configuration.overlay?.activeViewMin = 2
        configuration.overlay?.activeViewMax = 3
        configuration.overlay?.inboundMax = 2
        configuration.overlay?.dialsOnDemand = dials
        return configuration
    }

    static func started(_ seed: UInt8, _ nickname: String, _ configuration: P2PConfiguration) async throws -> Peer {
        let key = try IdentityKey(seed: Array(repeating: 0x4D, count: 31) + [seed])
        var configuration = configuration
        configuration.identityKey = key
        let identity = NodeIdentity(number: key.nodeNumber, nickname: nickname)
        let service = P2PService(identity: identity, configuration: configuration)
        let store = try ChatStore(path: nil, localNumber: identity.number)
        let node = ChatNode(identity: identity, transport: service, store: store,
                            authenticator: Ed25519MessageAuthenticator(key: key))
        try await node.start()
        return Peer(node: node, service: service, store: store, number: identity.number)
    }

    /// Seven overlay nodes (views of 2 to 3); returns them once some node
    /// pair is unlinked and outside each other's views.
    static func network(port: Int, dials: Bool, extra: [(String, P2PConfiguration)] = []) async throws
        -> (all: [Peer], alice: Peer, bob: Peer) {
        let configuration = Self.configuration(port: port, dials: dials)
        var all: [Peer] = []
        for index in 0..<7 { all.append(try await Self.started(UInt8(index + 1), "n\(index)", configuration)) }
        for (index, (nickname, other)) in extra.enumerated() { all.append(try await Self.started(UInt8(100 + index), nickname, other)) }
        var pair: (Peer, Peer)?
        let overlaid = Set(all.prefix(7).map(\.number))
        let found = await waitUntil("links settled to the views, two nodes outside each other's", within: .seconds(40)) {
            for peer in all.prefix(7) {
                guard let overlay = await peer.service.overlayForTesting(), !overlay.isFullMesh,
                      await peer.service.connectedPeers().count { overlaid.contains($0.number) } <= 3 else { return false }
            }
            let alice = all[0]
            guard let overlay = await alice.service.overlayForTesting(), !overlay.isFullMesh else { return false }
            let linked = Set(await alice.service.connectedPeers().map(\.number))
            for bob in all.prefix(7).dropFirst() where !linked.contains(bob.number) && !overlay.active.contains(bob.number) {
                pair = (alice, bob)
                return true
            }
            return false
        }
        #expect(found)
        let (alice, bob) = try #require(pair)
        return (all, alice, bob)
    }

    static func stop(_ peers: [Peer]) async {
        for peer in peers { await peer.node.stop() }
    }

    static func delivered(_ id: MessageID, by peer: Peer) async -> Bool {
        await peer.node.deliveryState(of: id) == .delivered
    }

    static func stored(_ id: MessageID, at peer: Peer, from sender: Peer) async throws -> Bool {
        try await peer.store.page(.direct(sender.number), before: nil, limit: 10).contains { $0.id == id }
    }

    @Test func aDMOutsideTheViewIsDeliveredOverALinkOnDemand() async throws {
        let port = EndToEndTests.discoveryPort()
        let (all, alice, bob) = try await Self.network(port: port, dials: true)
        defer { Task { await Self.stop(all) } }
        let sent = try await alice.node.sendDirect("hello from outside your view", to: bob.number)
        #expect(await waitUntil("stored at bob and acknowledged", within: .seconds(20)) {
            let stored = (try? await Self.stored(sent.id, at: bob, from: alice)) ?? false
            return stored ? await Self.delivered(sent.id, by: alice) : false
        })
        let counters = await alice.service.counters()
        #expect(counters.directLinks == 1 && counters.sealedSent == 0, "one link on demand, nothing sealed")
        // The answer goes back the same way and is acknowledged too.
        try await bob.node.accept("n0")
        let answer = try await bob.node.sendDirect("hello back", to: alice.number)
        #expect(await waitUntil("the answer delivered", within: .seconds(20)) { await Self.delivered(answer.id, by: bob) })
    }

    @Test func withoutDialsADMIsDeliveredSealedThroughRelays() async throws {
        let port = EndToEndTests.discoveryPort()
        let plain = Self.configuration(port: port, overlay: false)
        let (all, alice, bob) = try await Self.network(port: port, dials: false, extra: [("old", plain)])
        defer { Task { await Self.stop(all) } }
        let old = all[7]
        let sent = try await alice.node.sendDirect("sealed, end to end", to: bob.number)
        let toOld = try await alice.node.sendDirect("to the node without the overlay", to: old.number)
        #expect(await waitUntil("stored at bob and acknowledged", within: .seconds(20)) {
            let stored = (try? await Self.stored(sent.id, at: bob, from: alice)) ?? false
            return stored ? await Self.delivered(sent.id, by: alice) : false
        })
        #expect(await waitUntil("the node without the overlay DMed as before", within: .seconds(20)) {
            await Self.delivered(toOld.id, by: alice)
        })
        let (a, b) = (await alice.service.counters(), await bob.service.counters())
        #expect(a.directLinks == 0 && a.sealedSent >= 1 && b.sealedDelivered >= 1 && a.sealedDelivered >= 1)
        for relay in all.prefix(7) where relay.number != alice.number && relay.number != bob.number {
            #expect(try await relay.store.page(.direct(alice.number), before: nil, limit: 10).isEmpty, "a relay stores nothing")
        }
    }
}
