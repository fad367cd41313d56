import ChatCore
import ChatNode
import ChatStore
import Testing
import TestSupport

@Suite(.realTime) struct ChatNodeTests {
    @Test func publicMessageReachesEveryoneOnce() async throws {
        let (_, nodes) = try await TestNode.mesh(["alice", "bob", "carol"])
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        try await alice.node.sendPublic("  hello all ")
        _ = try await bob.waitForMessage("hello all")
        _ = try await carol.waitForMessage("hello all")
        #expect(bob.messages().count == 1)
        #expect(carol.messages().count == 1)
        #expect(alice.messages().count == 1)  // own message shown once
        #expect(await bob.node.recentMessages(in: .publicRoom).map(\.content) == ["hello all"])
    }

    @Test func refusedTextSendsNothing() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair()
        await #expect(throws: NodeError.chat(.invalidText(.empty))) { try await alice.node.sendPublic("   \n ") }
        let long = String(repeating: "가", count: 241)
        await #expect(throws: NodeError.chat(.invalidText(.tooLong(characters: 241, limit: 240)))) {
            try await alice.node.sendPublic(long)
        }
        // Frames on one link arrive in order: once this one is in, any
        // frame from the refused sends would have been too.
        try await alice.node.sendPublic("fine")
        _ = try await bob.waitForMessage("fine")
        #expect(await bob.node.statistics().receivedByType["publicMessage"] == 1)
        #expect(bob.messages().map(\.content) == ["fine"])
    }

    @Test func dmRequestAcceptedThenReachesOnlyItsTarget() async throws {
        let (_, nodes) = try await TestNode.mesh(["alice", "bob", "carol"])
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])

        try await alice.node.sendDirect("psst bob", to: "bob")
        try await bob.log.first("dm request") { if case .dmRequest(let p, let m) = $0, p.number == alice.identity.number { m } else { nil } }
        await #expect(throws: NodeError.chat(.awaitingAcceptance(peer: bob.identity.number))) {
            try await alice.node.sendDirect("again", to: "bob")
        }
        try await bob.node.accept("alice")
        try await alice.log.first("accepted") { if case .dmState(_, _, .accepted) = $0 { true } else { nil } }
        try await alice.node.sendDirect("second", to: "bob")
        let second = try await bob.waitForMessage("second")
        #expect(second.room == .direct(alice.identity.number))
        try await bob.node.sendDirect("reply", to: "alice")
        _ = try await alice.waitForMessage("reply")
        #expect(carol.messages().isEmpty)
    }

    @Test func declinedPeerCannotKeepSending() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair()
        try await alice.node.sendDirect("hi?", to: "bob")
        try await bob.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await bob.node.decline("alice")
        try await alice.log.first("declined") { if case .dmState(_, _, .declinedByPeer) = $0 { true } else { nil } }
        await #expect(throws: NodeError.chat(.declinedByPeer(peer: bob.identity.number))) {
            try await alice.node.sendDirect("please", to: "bob")
        }
    }

    @Test func ambiguousNicknameIsNotGuessed() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network)
        _ = try await TestNode("bob", number: 0x1_3f2a, on: network)
        _ = try await TestNode("bob", number: 0x2_0001, on: network)
        try await alice.waitForPeers(2)
        await #expect(throws: NodeError.peer(.ambiguous("bob", candidates: ["bob#3f2a", "bob#0001"]))) {
            try await alice.node.sendDirect("which?", to: "bob")
        }
        try await alice.node.sendDirect("you", to: "bob#3f2a")
        #expect(alice.node.displayName(for: NodeNumber(rawValue: 0x1_3f2a)!, nickname: "bob") == "bob#3f2a")
    }

    @Test func namesFollowJoinsLeavesAndRenamesWithoutAskingTheNode() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network)
        let first = NodeNumber(rawValue: 0x1_3f2a)!
        _ = try await TestNode("bob", number: 0x1_3f2a, on: network)
        try await alice.waitForPeers(1)
        // Nonisolated: read without waiting for the node.
        #expect(alice.node.displayName(for: first, nickname: "bob") == "bob")
        let second = try await TestNode("bob", number: 0x2_0001, on: network)
        try await alice.waitForPeers(2)
        #expect(alice.node.displayName(for: first, nickname: "bob") == "bob#3f2a")
        await second.node.stop()
        try await alice.log.first("second bob left") { if case .peerLeft(let p, _) = $0, p.number == second.identity.number { true } else { nil } }
        #expect(alice.node.displayName(for: first, nickname: "bob") == "bob")
        try await alice.node.rename(nickname: "Bob")
        #expect(alice.node.displayName(for: first, nickname: "bob") == "bob#3f2a")
        #expect(alice.node.displayName(for: alice.identity.number, nickname: "alice") == "Bob")
    }

    @Test func unreadCountsOnlyInactiveRooms() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair()
        try await alice.node.sendPublic("one")
        try await bob.log.first("unread 1") { if case .unread(.publicRoom, 1) = $0 { true } else { nil } }
        await bob.node.activate(.publicRoom)
        try await bob.log.first("unread 0") { if case .unread(.publicRoom, 0) = $0 { true } else { nil } }
        try await alice.node.sendPublic("two")
        _ = try await bob.waitForMessage("two")
        #expect(await bob.node.rooms().first?.unread == 0)
    }

    @Test func peerLeavingIsReported() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair()
        await bob.node.stop()
        try await alice.log.first("bob left") { if case .peerLeft(let p, .left) = $0, p.nickname == "bob" { true } else { nil } }
        try #require(await bob.log.waitUntil("bob's events finish") { bob.log.isFinished })
    }
}
