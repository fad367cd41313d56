import ChatCore
import Foundation
import Testing
@testable import ChatStore

@Suite struct ChatStoreRoomsTests {
    private static func unread(_ store: ChatStore, _ room: RoomID = .publicRoom) async throws -> Int? {
        try await store.summary(of: room)?.unreadCount
    }

    @Test func unreadCountsOnlyOthersAfterTheMarker() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let fromBob = Fixtures.numbered(3)
        try await store.insert(contentsOf: fromBob)
        #expect(try await Self.unread(store) == 3)
        try await store.insert(Fixtures.message(at: Fixtures.base + 10_000, idBits: 100, from: Fixtures.me))
        #expect(try await Self.unread(store) == 3, "my own messages never count")
        try await store.insert(fromBob[0])
        #expect(try await Self.unread(store) == 3, "a duplicate does not count twice")

        #expect(try await store.markRead(.publicRoom, upTo: fromBob[1].cursor) == 1)
        #expect(try await Self.unread(store) == 1)
        // A late message timestamped before the marker is already "read".
        try await store.insert(Fixtures.message(at: Fixtures.base - 5000, idBits: 101))
        #expect(try await Self.unread(store) == 1)
        try await store.insert(Fixtures.message(at: Fixtures.base + 20_000, idBits: 102, from: Fixtures.carol))
        #expect(try await Self.unread(store) == 2)
        #expect(try await store.markAllRead(.publicRoom) == 0)
        #expect(try await store.summary(of: .publicRoom)?.readMarker == Fixtures.message(at: Fixtures.base + 20_000, idBits: 102).cursor)
    }

    @Test func markerOnlyMovesForward() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(10)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: messages[6].cursor)
        #expect(try await store.markRead(.publicRoom, upTo: messages[2].cursor) == 3)
        #expect(try await store.summary(of: .publicRoom)?.readMarker == messages[6].cursor)
        #expect(try await store.markRead(.direct(Fixtures.bob), upTo: messages[2].cursor) == 0, "unknown room: nothing to mark")
    }

    @Test func markerNeverPassesTheNewestMessage() async throws {
        // Marking "everything up to the far future" must not pre-read
        // messages that arrive later with earlier timestamps.
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(3)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: .justBefore(millis: Timestamp.latestAccepted))
        #expect(try await store.summary(of: .publicRoom)?.readMarker == messages[2].cursor)
        try await store.insert(Fixtures.message(at: Fixtures.base + 60_000, idBits: 50))
        #expect(try await Self.unread(store) == 1)
    }

    @Test func unreadSurvivesReopen() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("h.sqlite").path
            let messages = Fixtures.numbered(10)
            do {
                let store = try ChatStore(path: path, localNumber: Fixtures.me)
                try await store.insert(contentsOf: messages)
                try await store.markRead(.publicRoom, upTo: messages[3].cursor)
                await store.close()
            }
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            let summary = try #require(try await store.summary(of: .publicRoom))
            #expect(summary.unreadCount == 6)
            #expect(summary.readMarker == messages[3].cursor)
            #expect(summary.messageCount == 10)
        }
    }

    @Test func roomListComesFromTheRoomsTable() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let long = String(repeating: "가", count: 200)
        try await store.insert(Fixtures.message(at: Fixtures.base, idBits: 1, room: .publicRoom))
        try await store.insert(Fixtures.message(at: Fixtures.base + 5000, idBits: 2, room: .direct(Fixtures.bob), text: long))
        try await store.insert(Fixtures.message(at: Fixtures.base + 1000, idBits: 3, room: .direct(Fixtures.bob), text: "older"))
        try await store.setConversation(peer: Fixtures.carol, nickname: "carol", state: .outgoingRequest)

        let rooms = try await store.rooms()
        #expect(rooms.map(\.room) == [.direct(Fixtures.bob), .publicRoom, .direct(Fixtures.carol)])
        let bob = rooms[0]
        #expect(bob.lastPreview == String(repeating: "가", count: ChatStore.previewCharacters), "the newest, not the last inserted")
        #expect(bob.lastSenderNickname == "peer2")
        #expect(bob.peerNickname == "peer2", "learned from the peer's own message")
        #expect(bob.messageCount == 2 && bob.unreadCount == 2)
        #expect(bob.lastActivity == Timestamp.date(fromMillis: Fixtures.base + 5000))
        #expect(rooms[2].lastMessage == nil && rooms[2].dmState == .outgoingRequest && rooms[2].peerNickname == "carol")
    }

    @Test func conversationsKeepTheirStateAlongsideMessages() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.setConversation(peer: Fixtures.carol, nickname: "carol", state: .incomingRequest)
        try await store.insert(Fixtures.message(at: Fixtures.base, idBits: 1, room: .direct(Fixtures.carol), from: Fixtures.carol))
        try await store.setConversation(peer: Fixtures.carol, nickname: "caz", state: .accepted)
        try await store.insert(Fixtures.message(at: Fixtures.base, idBits: 2, room: .direct(Fixtures.bob), from: Fixtures.me))
        let conversations = try await store.conversations()
        #expect(conversations.map(\.peer) == [Fixtures.bob, Fixtures.carol])
        #expect(conversations[0].state == .none && conversations[0].nickname == "")
        #expect(conversations[1].state == .accepted && conversations[1].nickname == "caz")
        #expect(try await store.summary(of: .direct(Fixtures.carol))?.unreadCount == 1, "state changes keep unread")
    }

    @Test func batchRollsBackOnAnError() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("h.sqlite").path
            try await ChatStore(path: path, localNumber: Fixtures.me).close()
            do {
                // A trigger that fails the fourth insert, to see the batch undo.
                let raw = try SQLiteDatabase(path: path)
                try raw.execute("""
                    CREATE TRIGGER fail_fourth BEFORE INSERT ON messages WHEN (SELECT count(*) FROM messages) >= 3
                    BEGIN SELECT RAISE(ABORT, 'disk says no'); END
                    """)
                raw.close()
            }
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            await #expect {
                try await store.insert(contentsOf: Fixtures.numbered(5))
            } throws: { error in
                guard case .sqlite(_, let message, _) = error as? StoreError else { return false }
                return message.contains("disk says no")
            }
            #expect(try await store.page(.publicRoom, after: nil).isEmpty)
            #expect(try await store.rooms().isEmpty)
            #expect(try await store.insert(contentsOf: Fixtures.numbered(3)) == 3, "the store still works")
        }
    }
}
