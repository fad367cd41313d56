import ChatCore
import ChatNode
import ChatStore
import Testing
import TestSupport

/// Catch-up fetches each missing page from one peer: with several linked
/// peers holding the same backlog, one sends the pages and the others are
/// asked once, for a small page; a peer that does not answer hands over.
@Suite(.realTime) struct CatchUpSourceTests {
    static func historyRequests(_ node: TestNode) async -> Int {
        await node.node.statistics().receivedByType["historyRequest"] ?? 0
    }

    @Test func threePeersWithTheSameBacklogSendItOnce() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network)
        let peers = [
            try await TestNode("bob", number: 2, on: network),
            try await TestNode("carol", number: 3, on: network),
            try await TestNode("dave", number: 4, on: network),
        ]
        try await alice.waitForPeers(3)
        // Let the start-up rounds finish (each node asks each peer once), then count from here.
        try #require(await waitUntil("start-up catch-up done") {
            for node in [alice] + peers where await node.node.statistics().receivedByType["historyReply"] != 3 { return false }
            return true
        })
        for peer in peers { await network.cut(alice.identity.number, peer.identity.number) }
        try await alice.waitForPeers(0)
        let missed = 600  // three full pages of 200
        for n in 1...missed { try await peers[0].node.sendPublic("while away \(n)") }
        for peer in peers {
            try #require(await waitUntil("\(peer.identity.nickname) holds the backlog") {
                try await peer.storedPublic().count == missed
            })
        }
        var before: [Int] = []
        for peer in peers { before.append(await Self.historyRequests(peer)) }
        let relayedBefore = await network.relayedEntries

        for peer in peers { await network.heal(alice.identity.number, peer.identity.number) }
        try #require(await waitUntil("all caught up") {
            try await alice.storedPublic().count == missed
        })
        // The events follow the commit (a page is shown after it is
        // stored), on the log's own task: wait until it holds as many.
        try #require(await waitUntil("all shown") { alice.messages().count >= missed })
        // Every peer has been asked something once the round is over.
        try #require(await waitUntil("every peer asked") {
            for (peer, count) in zip(peers, before) where await Self.historyRequests(peer) == count { return false }
            return true
        })
        var asked: [Int] = []
        for (peer, count) in zip(peers, before) { asked.append(await Self.historyRequests(peer) - count) }
        asked.sort()
        // One source sends the three pages of 200; the two others only get
        // probes of 20, at most a few pages in a row with nothing new each
        // (before: every peer sent all three full pages).
        let probes = NodeLimits.catchUpIdlePagesBeforeYield
        #expect(asked[0] <= probes && asked[1] <= probes && asked[2] >= 3, "requests per peer: \(asked)")
        let relayedAfter = await network.relayedEntries
        var sent = peers.map { (relayedAfter[$0.identity.number] ?? 0) - (relayedBefore[$0.identity.number] ?? 0) }
        sent.sort()
        #expect(sent[0] <= probes * NodeLimits.catchUpProbeSize && sent[1] <= probes * NodeLimits.catchUpProbeSize
                && sent[2] >= missed, "history entries sent per peer: \(sent)")
        let caughtUpFrom = Set(alice.log.events.compactMap { if case .caughtUp(let peer, _) = $0 { peer } else { nil } })
        #expect(caughtUpFrom.count == 1, "every missed message came from one peer")
        // Each stored message shown once: none twice, none left out.
        let ids = alice.messages().map(\.id)
        let stored = try await alice.storedPublic()
        #expect(ids.count == missed && Set(ids) == stored)
    }

    @Test func aPeerThatDoesNotAnswerHandsOverToAnother() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network,
                                       options: NodeOptions(catchUpTimeout: .milliseconds(300)))
        let bob = try await TestNode("bob", number: 2, on: network)
        try await alice.waitForPeers(1)
        await network.cut(alice.identity.number, bob.identity.number)
        try await alice.waitForPeers(0)
        for n in 1...30 { try await bob.node.sendPublic("bob alone \(n)") }

        // A silent peer links first, so it is asked first.
        let silent = try await Mallory(on: network)
        try await alice.waitForPeers(1)
        let first = try await silent.request(from: alice.identity.number)
        #expect(first.limit == 200)
        await network.heal(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("bob's messages caught up after the timeout") {
            try await alice.storedPublic().count == 30
        })
        // The silent peer is asked once more, for a probe, then given up.
        try #require(await waitUntil("both requests timed out") { await alice.node.statistics().catchUpTimeouts == 2 })
        let requests = silent.log.events.compactMap {
            if case .received(let payload, let from) = $0, from == alice.identity.number, payload.type == .historyRequest { payload } else { nil }
        }
        #expect(requests.map(\.limit) == [200, 20])
    }

    /// A hostile peer answering every request with an empty page and
    /// `more: true` cannot keep the node from catching up from the others.
    @Test func aPeerThatNeverFinishesCannotHoldUpTheOthers() async throws {
        let (network, alice, bob) = try await TestNode.linkedPair()
        await network.cut(alice.identity.number, bob.identity.number)
        try await alice.waitForPeers(0)
        for n in 1...30 { try await bob.node.sendPublic("bob alone \(n)") }

        let endless = try await Mallory(on: network)
        let answering = Task {
            var answered = 0
            while !Task.isCancelled {
                let requests = endless.log.events.compactMap {
                    if case .received(let payload, let from) = $0, from == alice.identity.number, payload.type == .historyRequest { payload } else { nil }
                }
                for request in requests.dropFirst(answered) {
                    var reply = endless.reply(to: request.messageId, with: [])
                    reply.more = true
                    reply.catchUp = CatchUpCursor(epoch: "endless", seq: Int64(answered + 1) * 200)
                    answered += 1
                    _ = await endless.transport.send(reply, to: alice.identity.number)
                }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        defer { answering.cancel() }
        _ = try await endless.request(from: alice.identity.number)
        await network.heal(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("bob's messages caught up despite the endless peer") {
            try await alice.storedPublic().count == 30
        })
        #expect(await alice.node.statistics().catchUpTimeouts == 0)
    }

    /// Three nodes each alone for a while, then all linked at once: each
    /// catches up the backlog from one peer, and the probe of the other
    /// finds what only that one holds, so nothing is missed.
    @Test func threeIsolatedNodesConvergeThroughTheProbes() async throws {
        let network = InMemoryNetwork()
        let nodes = [
            try await TestNode("a", number: 1, on: network),
            try await TestNode("b", number: 2, on: network),
            try await TestNode("c", number: 3, on: network),
        ]
        try await nodes[0].waitForPeers(2)
        let numbers = nodes.map(\.identity.number)
        for (i, j) in [(0, 1), (0, 2), (1, 2)] { await network.cut(numbers[i], numbers[j]) }
        for node in nodes { try await node.waitForPeers(0) }
        for node in nodes {
            for n in 1...25 { try await node.node.sendPublic("\(node.identity.nickname) alone \(n)") }
        }
        for (i, j) in [(0, 1), (0, 2), (1, 2)] { await network.heal(numbers[i], numbers[j]) }
        try #require(await waitUntil("all hold all 75") {
            for node in nodes where try await node.storedPublic().count != 75 { return false }
            return true
        })
        for node in nodes {
            let ids = node.messages().map(\.id)
            #expect(ids.count == Set(ids).count)
        }
    }
}
