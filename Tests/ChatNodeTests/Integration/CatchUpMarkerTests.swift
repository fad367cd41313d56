import ChatCore
import ChatNode
import ChatStore
import Testing
import TestSupport

/// Issue 27 on the node's side: a catch-up never moves the read marker (no
/// room is active in the full-screen client), every caught-up message from
/// others counts as unread, and marking a shown run that starts after an
/// unseen gap is refused, as the screen relies on.
@Suite(.realTime) struct CatchUpMarkerTests {
    @Test func caughtUpMessagesStayUnreadUntilShownFromTheMarker() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network)
        let bob = try await TestNode("bob", number: 2, on: network)
        try await alice.waitForPeers(1)
        try await alice.node.sendPublic("before")
        _ = try await bob.waitForMessage("before")
        await network.cut(alice.identity.number, bob.identity.number)
        try await alice.waitForPeers(0)
        for n in 1...120 { try await bob.node.sendPublic("m\(n)") }
        await network.heal(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("caught up", within: .seconds(20)) {
            try await alice.storedPublic().count == 121
        })
        let unread = { try await alice.node.roomList().first { $0.room == .publicRoom }?.unreadCount ?? -1 }
        #expect(try await unread() == 120, "a catch-up reads nothing")
        let stored = try await alice.node.openHistory(.publicRoom, limit: 200)
        let caught = stored.messages.filter { $0.senderNumber == bob.identity.number }
        try #require(caught.count == 120)
        // A screen showing m85...m120 (what the old client marked) moves nothing.
        #expect(try await alice.node.markRead(.publicRoom, shownFrom: caught[84].cursor, upTo: caught[119].cursor) == 120)
        // The first screen, from the marker on, is read; the rest stays unread.
        #expect(try await alice.node.markRead(.publicRoom, shownFrom: caught[0].cursor, upTo: caught[34].cursor) == 85)
        await alice.node.stop()
        await bob.node.stop()
    }
}
