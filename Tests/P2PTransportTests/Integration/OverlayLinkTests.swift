import ChatCore
import ChatCrypto
import ChatOverlay
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// The overlay wired into real services on loopback (PROTOCOL.md,
/// "Overlay"), its threshold forced down so a few nodes run it: the
/// capability in the hello, overlay frames only between peers that both
/// announce it, public messages by gossip above the threshold, bounded
/// links, repair after a crash, and a relayer that lies about a signature
/// scored out.
@Suite(.realTime) struct OverlayLinkTests {
    /// The overlay with its threshold at `threshold` and views of 3 to 4
    /// (so 8 nodes cannot all be one another's neighbours).
    static func configuration(port: Int, threshold: Int = 3) -> P2PConfiguration {
        var configuration = TestNetwork.configuration(discoveryPort: port)
        configuration.enableOverlay(fullMeshThreshold: threshold)
        configuration.overlay?.activeViewMin = 3
        configuration.overlay?.activeViewMax = 4
        configuration.overlay?.inboundMax = 3
        return configuration
    }

    /// A public message from `node`, signed with its key (as a node signs its own).
    static func signed(_ text: String, by node: TestNode) -> P2PPayload {
        var payload = node.publicMessage(text)
        Ed25519MessageAuthenticator(key: TestNetwork.key(node.seed)).sign(&payload)
        return payload
    }

    static func publicTexts(_ node: TestNode) -> Set<String> {
        Set(node.log.events.compactMap { if case .received(let p, _) = $0, p.type == .publicMessage { p.content } else { nil } })
    }

    static func overlayFrames(_ node: TestNode) -> Int {
        node.log.events.count { if case .received(let p, _) = $0, case .unknown(let name) = p.type { name.hasPrefix("overlay") } else { false } }
    }

    /// Two overlay nodes (forced above the threshold) and one without the
    /// capability: the old node stays linked to both and gets every public
    /// message whole, theirs reach it and each other, DMs go both ways, and
    /// no overlay frame ever reaches it (nor the node layer of the others).
    @Test func aNodeWithoutTheOverlayIsLinkedAndServedAsBefore() async throws {
        let port = TestNetwork.discoveryPort()
        let overlaid = Self.configuration(port: port, threshold: 2)
        let plain = TestNetwork.configuration(discoveryPort: port)
        let alice = try await TestNode.started(7_101, "alice", configuration: overlaid)
        let bob = try await TestNode.started(7_102, "bob", configuration: overlaid)
        let carol = try await TestNode.started(7_103, "carol", configuration: plain)
        defer { Task { for node in [alice, bob, carol] { await node.service.stop() } } }

        #expect(await waitUntil("alice and bob gossip, every pair linked") {
            guard let a = await alice.service.overlayForTesting(), !a.isFullMesh, a.active.contains(bob.number) else { return false }
            for node in [alice, bob, carol] where await node.service.connectedPeers().count != 2 { return false }
            return true
        })
        #expect(await alice.service.speaksOverlayForTesting(bob.number) == true)
        #expect(await alice.service.speaksOverlayForTesting(carol.number) == false)
        #expect(await carol.service.overlayForTesting() == nil)

        await alice.service.broadcast(Self.signed("from alice", by: alice))
        await bob.service.send(batch: [.everyone(Self.signed("from bob", by: bob))])
        await carol.service.broadcast(Self.signed("from carol", by: carol))
        await alice.service.send(alice.directMessage("dm to carol", to: carol.number), to: carol.number)
        await carol.service.send(carol.directMessage("dm to alice", to: alice.number), to: alice.number)

        #expect(await waitUntil("every public message everywhere, both DMs") {
            Self.publicTexts(alice) == ["from bob", "from carol"] && Self.publicTexts(bob) == ["from alice", "from carol"]
                && Self.publicTexts(carol) == ["from alice", "from bob"]
                && carol.receivedTexts.contains("dm to carol") && alice.receivedTexts.contains("dm to alice")
        })
        let (a, b) = (await alice.service.counters(), await bob.service.counters())
        #expect(a.gossipPublished == 1 && b.gossipPublished == 1, "alice and bob gossip their own")
        #expect(a.overlayFramesSent > 0 && b.overlayFramesReceived > 0)
        #expect(await carol.service.counters().unknownType == 0, "carol is sent no overlay frame")
        for node in [alice, bob, carol] { #expect(Self.overlayFrames(node) == 0, "overlay frames stay in the transport") }
    }

    /// Below the threshold nothing changes: every peer is linked and a
    /// public message goes whole on every link, none by gossip.
    @Test func belowTheThresholdItIsTheFullMesh() async throws {
        let port = TestNetwork.discoveryPort()
        var configuration = TestNetwork.configuration(discoveryPort: port)
        configuration.enableOverlay()  // 48
        let nodes = try await (0..<4).asyncMap { try await TestNode.started(7_200 + UInt64($0), "n\($0)", configuration: configuration) }
        defer { Task { for node in nodes { await node.service.stop() } } }
        #expect(await waitUntil("a full mesh") {
            for node in nodes where await node.service.connectedPeers().count != 3 { return false }
            return true
        })
        await nodes[0].service.broadcast(Self.signed("to all", by: nodes[0]))
        #expect(await waitUntil("everyone has it") { nodes.dropFirst().allSatisfy { Self.publicTexts($0) == ["to all"] } })
        let counters = await nodes[0].service.counters()
        #expect(counters.gossipPublished == 0 && counters.overlayCloses == 0)
        #expect(await nodes[0].service.overlayForTesting()?.isFullMesh == true)
    }

    /// Eight nodes, threshold 3, views of at most 4: links per node settle
    /// at or under 4, every public message reaches all seven others, and
    /// after one node crashes the other seven still reach one another.
    @Test func eightNodesGossipToEveryoneOnBoundedLinks() async throws {
        let port = TestNetwork.discoveryPort()
        let configuration = Self.configuration(port: port)
        let nodes = try await (0..<8).asyncMap { try await TestNode.started(7_300 + UInt64($0), "g\($0)", configuration: configuration) }
        defer { Task { for node in nodes { await node.service.stop() } } }

        #expect(await waitUntil("bounded links on every node", within: .seconds(40)) {
            for node in nodes {
                guard let overlay = await node.service.overlayForTesting(), !overlay.isFullMesh, !overlay.active.isEmpty,
                      await node.service.linkCountForTesting() <= 4 else { return false }
            }
            return true
        })
        // Gossip reaches whoever the views connect (Plumtree repairs lost
        // links, not a partition that healed later: catch-up does that).
        #expect(await waitUntil("one connected overlay", within: .seconds(40)) { await Self.connected(nodes) })
        try await Self.everyoneReachesEveryone(nodes, round: "first")
        var links: [Int] = []
        for node in nodes {
            links.append(await node.service.connectedPeers().count)
            #expect((await node.service.overlayForTesting()?.active.count ?? 99) <= 4, "the view's hard cap")
        }
        print("overlay links per node (8 nodes, view at most 4): \(links)")
        // A peer refused a place may hold a link for a moment (until the
        // refusal reaches it): links settle back under the cap.
        let settled = await waitUntil("links settle at 4 or fewer") {
            for node in nodes where await node.service.connectedPeers().count > 4 { return false }
            return true
        }
        if !settled {
            for node in nodes {
                let linked = await node.service.connectedPeers().map(\.number)
                print("\(node.identity.nickname): linked \(linked.count), view \(String(describing: await node.service.overlayForTesting()))")
            }
        }
        #expect(settled)

        await nodes[3].service.crashForTesting()
        let rest = nodes.enumerated().filter { $0.offset != 3 }.map(\.element)
        #expect(await waitUntil("the views repaired around the crash", within: .seconds(40)) { await Self.connected(rest) })
        try await Self.everyoneReachesEveryone(rest, round: "after the crash")
    }

    /// Whether the active views, each confirmed by the other end, join `nodes` into one graph.
    static func connected(_ nodes: [TestNode]) async -> Bool {
        var views: [NodeNumber: Set<NodeNumber>] = [:]
        for node in nodes { views[node.number] = Set(await node.service.overlayForTesting()?.active ?? []) }
        var reached: Set<NodeNumber> = [nodes[0].number]
        var frontier = [nodes[0].number]
        while let next = frontier.popLast() {
            for peer in views[next] ?? [] where views[peer]?.contains(next) == true && reached.insert(peer).inserted {
                frontier.append(peer)
            }
        }
        return reached.count == nodes.count
    }

    /// Each node publishes one message; every other node must get all of them.
    static func everyoneReachesEveryone(_ nodes: [TestNode], round: String) async throws {
        for node in nodes { await node.service.broadcast(signed("\(round) from \(node.identity.nickname)", by: node)) }
        let reached = await waitUntil("every \(round) message everywhere", within: .seconds(30)) {
            nodes.allSatisfy { node in
                let texts = publicTexts(node)
                return nodes.allSatisfy { $0 === node || texts.contains("\(round) from \($0.identity.nickname)") }
            }
        }
        if !reached {
            for node in nodes {
                let missing = nodes.filter { $0 !== node && !publicTexts(node).contains("\(round) from \($0.identity.nickname)") }
                let names = Dictionary(uniqueKeysWithValues: nodes.map { ($0.number, $0.identity.nickname) })
                let view = await node.service.overlayForTesting()
                let linked = await node.service.connectedPeers().map { names[$0.number] ?? "?" }
                print("\(node.identity.nickname) misses \(missing.map(\.identity.nickname)); view \(view?.active.map { names[$0] ?? "?" } ?? []) linked \(linked) counters \(await node.service.counters().gossipRefused)")
            }
        }
        #expect(reached, "\(round)")
    }

    /// Mallory, an overlay neighbour, relays a message whose signature does
    /// not hold: it is refused before the node sees it or anyone gets it
    /// relayed, and she is scored out of alice's view and kept out. A
    /// genuine message of a third author she relays is delivered as its
    /// author's, from her link.
    @Test func aRelayedMessageIsVerifiedAndALiarScoredOut() async throws {
        let port = TestNetwork.discoveryPort()
        let configuration = Self.configuration(port: port, threshold: 2)
        let alice = try await TestNode.started(7_401, "alice", configuration: configuration)
        let mallory = try await TestNode.started(7_402, "mallory", configuration: configuration)
        defer { Task { for node in [alice, mallory] { await node.service.stop() } } }
        #expect(await waitUntil("neighbours in the overlay") {
            await alice.service.overlayForTesting()?.active == [mallory.number]
                && alice.log.joined(mallory.number) != nil && mallory.log.joined(alice.number) != nil
        })
        // Carol never links: her message reaches alice only through mallory.
        let carol = TestNode(7_403, "carol", configuration: configuration)
        let genuine = Self.signed("carol, genuinely", by: carol)
        await mallory.service.sendOverlayForTesting(.gossip(GossipMessage(hops: 2, message: genuine)), to: alice.number)
        let relayed = try await alice.log.first("carol's message from mallory") {
            if case .received(let p, let from) = $0, p.content == "carol, genuinely" { (p, from) } else { nil }
        }
        #expect(relayed.0.senderNumber == carol.number && relayed.1 == mallory.number)

        var forged = genuine
        forged.messageId = MessageID(millis: 1_732_147_200_000, random: (1, 2))
        forged.content = "carol, forged"
        await mallory.service.sendOverlayForTesting(.gossip(GossipMessage(hops: 2, message: forged)), to: alice.number)
        #expect(await waitUntil("refused, and mallory out of alice's view") {
            let refused = await alice.service.counters().gossipRefused
            let active = await alice.service.overlayForTesting()?.active ?? []
            return refused == 1 && !active.contains(mallory.number)
        })
        #expect(!Self.publicTexts(alice).contains("carol, forged"))
        // She asks back in (her view is empty): once alice has read her
        // next membership frame, she still holds her off.
        let heard = await alice.service.counters().overlayFramesReceived
        #expect(await waitUntil("mallory asks again") { await alice.service.counters().overlayFramesReceived > heard })
        let active = await alice.service.overlayForTesting()?.active ?? []
        #expect(!active.contains(mallory.number))
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
