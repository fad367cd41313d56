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
        var configuration = P2PConfiguration.loopbackTest(discoveryPort: port)
        guard overlay else { return configuration }
        configuration.enableOverlay(fullMeshThreshold: 3)
        configuration.overlay?.activeViewMin = 3
        configuration.overlay?.activeViewMax = 3
        // No shuffles: settled views stay, so the pair found unlinked stays so.
        configuration.overlay?.shuffleInterval = .seconds(3_600)
        configuration.overlay?.dialsOnDemand = dials
        return configuration
    }

    static func started(_ seed: UInt8, _ nickname: String, _ configuration: P2PConfiguration) async throws -> Peer {
        let key = try IdentityKey(seed: Array(repeating: 0x4D, count: 31) + [seed])
        var configuration = configuration
        configuration.identityKey = key
        let identity = NodeIdentity(number: key.nodeNumber, nickname: nickname)
        let verified = VerifiedSignatures()
        let service = P2PService(identity: identity, configuration: configuration, verifiedSignatures: verified)
        let store = try ChatStore(path: nil, localNumber: identity.number)
        let node = ChatNode(identity: identity, transport: service, store: store,
                            authenticator: Ed25519MessageAuthenticator(key: key, verified: verified))
        try await node.start()
        return Peer(node: node, service: service, store: store, number: identity.number)
    }

    /// Seven overlay nodes (views of 3, no shuffles), then `extra`.
    static func network(port: Int, dials: Bool, extra: [(String, P2PConfiguration)] = []) async throws -> [Peer] {
        let configuration = Self.configuration(port: port, dials: dials)
        var all: [Peer] = []
        for index in 0..<7 { all.append(try await Self.started(UInt8(index + 1), "n\(index)", configuration)) }
        for (index, (nickname, other)) in extra.enumerated() { all.append(try await Self.started(UInt8(100 + index), nickname, other)) }
        return all
    }

    /// Once the seven's links have settled to views that join them all: a
    /// node `all[0]` is not linked to and that is outside its view.
    static func unlinked(in all: [Peer], besides used: Set<NodeNumber>) async throws -> Peer {
        var bob: Peer?
        let overlaid = Set(all.prefix(7).map(\.number))
        let first = all[0].number
        let found = await waitUntil("links settled to the views, a node outside the first's", within: .seconds(75)) {
            for peer in all.prefix(7) {
                // A link on demand from an earlier try (the first node and a
                // peer it DMed) is kept while their conversation is active:
                // not a view's, and not counted against the views' bound.
                let onDemand: Set<NodeNumber> = peer.number == first ? used : used.contains(peer.number) ? [first] : []
                guard let overlay = await peer.service.overlayForTesting(), !overlay.isFullMesh,
                      await peer.service.connectedPeers().count(where: { overlaid.contains($0.number) && !onDemand.contains($0.number) }) <= 3
                else { return false }
            }
            guard await Self.connected(all.prefix(7)), let overlay = await all[0].service.overlayForTesting() else { return false }
            let linked = Set(await all[0].service.connectedPeers().map(\.number))
            bob = all.prefix(7).dropFirst().first {
                !linked.contains($0.number) && !overlay.active.contains($0.number) && !used.contains($0.number)
            }
            return bob != nil
        }
        if !found {
            // What did not settle: each node's links to the seven and its view.
            var seen: [String] = []
            for peer in all.prefix(7) {
                let links = await peer.service.connectedPeers().filter { overlaid.contains($0.number) }.count
                let view = await peer.service.overlayForTesting()?.active.count ?? -1
                seen.append("\(peer.number): \(links) links, view \(view)")
            }
            Issue.record("links did not settle (tried before: \(used.count)): \(seen.joined(separator: "; "))")
        }
        return try #require(bob)
    }

    /// Alice (`all[0]`) DMs peers outside her view until one DM has gone
    /// the way `proves` checks (counters before and after, of alice and
    /// the peer): the overlay may make a pair neighbours while a DM is on
    /// its way (a view repaired), and then that DM proves nothing. Every
    /// DM must be stored and acknowledged. Returns the peers DMed.
    static func dmOutsideTheView(_ all: [Peer], proves: (_ alice: (TransportCounters, TransportCounters),
                                                         _ bob: (TransportCounters, TransportCounters)) -> Bool) async throws -> [Peer] {
        let alice = all[0]
        var used: [Peer] = []
        var proven = false
        for attempt in 0..<3 where !proven {
            let bob = try await Self.unlinked(in: all, besides: Set(used.map(\.number)))
            used.append(bob)
            let before = (await alice.service.counters(), await bob.service.counters())
            let sent = try await alice.node.sendDirect("outside your view, try \(attempt)", to: bob.number)
            #expect(await waitUntil("stored at the peer and acknowledged", within: .seconds(20)) {
                let stored = (try? await Self.stored(sent.id, at: bob, from: alice)) ?? false
                return stored ? await Self.delivered(sent.id, by: alice) : false
            })
            let after = (await alice.service.counters(), await bob.service.counters())
            proven = proves((before.0, after.0), (before.1, after.1))
        }
        #expect(proven, "a DM went the way under test within 3 tries")
        return used
    }

    /// Whether the active views, each confirmed by the other end, join `peers` into one graph
    /// (sealed frames are flooded over them).
    static func connected(_ peers: ArraySlice<Peer>) async -> Bool {
        var views: [NodeNumber: Set<NodeNumber>] = [:]
        for peer in peers { views[peer.number] = Set(await peer.service.overlayForTesting()?.active ?? []) }
        guard let first = peers.first?.number else { return false }
        var reached: Set<NodeNumber> = [first]
        var frontier = [first]
        while let next = frontier.popLast() {
            for peer in views[next] ?? [] where views[peer]?.contains(next) == true && reached.insert(peer).inserted {
                frontier.append(peer)
            }
        }
        return reached.count == peers.count
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
        let all = try await Self.network(port: port, dials: true)
        defer { Task { await Self.stop(all) } }
        let used = try await Self.dmOutsideTheView(all) { alice, _ in
            alice.1.directLinks > alice.0.directLinks && alice.1.sealedSent == alice.0.sealedSent
        }
        // The answer goes back on the same link and is acknowledged too.
        let bob = try #require(used.last)
        try await bob.node.accept("n0")
        let answer = try await bob.node.sendDirect("hello back", to: all[0].number)
        #expect(await waitUntil("the answer delivered", within: .seconds(20)) { await Self.delivered(answer.id, by: bob) })
    }

    @Test func withoutDialsADMIsDeliveredSealedThroughRelays() async throws {
        let port = EndToEndTests.discoveryPort()
        let plain = Self.configuration(port: port, overlay: false)
        let all = try await Self.network(port: port, dials: false, extra: [("old", plain)])
        defer { Task { await Self.stop(all) } }
        let alice = all[0], old = all[7]
        let toOld = try await alice.node.sendDirect("to the node without the overlay", to: old.number)
        // Bob opens alice's envelope, alice opens bob's sealed ack; no link is made.
        let used = try await Self.dmOutsideTheView(all) { alice, bob in
            bob.1.sealedDelivered > bob.0.sealedDelivered && alice.1.sealedDelivered > alice.0.sealedDelivered
                && alice.1.directLinks == 0
        }
        #expect(await waitUntil("the node without the overlay DMed as before", within: .seconds(20)) {
            await Self.delivered(toOld.id, by: alice)
        })
        let recipients = Set(used.map(\.number))
        for relay in all.prefix(7).dropFirst() where !recipients.contains(relay.number) {
            #expect(try await relay.store.page(.direct(alice.number), before: nil, limit: 10).isEmpty, "a relay stores nothing")
        }
    }
}
