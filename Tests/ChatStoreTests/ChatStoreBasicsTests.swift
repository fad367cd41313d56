import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

@Suite struct ChatStoreBasicsTests {
    @Test func writeCloseReopenReadBack() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let messages = Fixtures.numbered(5) + [
                Fixtures.message(at: Fixtures.base, idBits: 99, room: .direct(Fixtures.bob), text: "안녕 👋🏽 \"quotes\" and 'ticks'"),
            ]
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await store.insert(contentsOf: messages) == 6)
            try await store.setValue("4711", forKey: "nodeNumber")
            try await store.setConversation(peer: Fixtures.bob, nickname: "bobby", state: .accepted)
            await store.close()

            let reopened = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await reopened.page(.publicRoom, before: nil) == Array(messages.prefix(5)))
            #expect(try await reopened.page(.direct(Fixtures.bob), after: nil) == [messages[5]])
            #expect(try await reopened.value(forKey: "nodeNumber") == "4711")
            #expect(try await reopened.value(forKey: "missing") == nil)
            let conversations = try await reopened.conversations()
            #expect(conversations.count == 1)
            #expect(conversations.first?.peer == Fixtures.bob)
            #expect(conversations.first?.nickname == "bobby")
            #expect(conversations.first?.state == .accepted)
            #expect(try await reopened.integrityCheck())
            await reopened.close()
        }
    }

    @Test func committedMessagesAreInTheFileBeforeClose() async throws {
        // What a process kill leaves: a second connection sees every insert
        // that returned, though the first store never closed.
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let writer = try ChatStore(path: path, localNumber: Fixtures.me)
            try await writer.insert(Fixtures.numbered(1)[0])
            let reader = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await reader.page(.publicRoom, after: nil).count == 1)
            #expect(try await reader.rooms().first?.messageCount == 1)
        }
    }

    @Test func opensInWALWithFullSync() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await store.pragma("journal_mode") == "wal")
            #expect(try await store.pragma("synchronous") == "2")  // FULL
            #expect(try await store.pragma("user_version") == String(Schema.currentVersion))
            let relaxed = try ChatStore(path: path, localNumber: Fixtures.me, durability: .normal)
            #expect(try await relaxed.pragma("synchronous") == "1")  // NORMAL
        }
    }

    @Test func insertIsIdempotentByMessageID() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let message = Fixtures.numbered(1)[0]
        #expect(try await store.insert(message))
        #expect(try await !store.insert(message))
        var replay = message
        replay.content = "a different text under the same id"
        #expect(try await !store.insert(replay), "first copy wins")
        #expect(try await store.message(message.id)?.content == message.content)
        // A batch with repeats inside it and against the store.
        let batch = Fixtures.numbered(4)
        #expect(try await store.insert(contentsOf: batch + batch) == 3)
        #expect(try await store.contains(batch[3].id))
        #expect(try await !store.contains(MessageID(millis: 1, random: (0, 0))))
        let summary = try #require(try await store.summary(of: .publicRoom))
        #expect(summary.messageCount == 4)
        #expect(summary.unreadCount == 4)
    }

    @Test func metaValuesSetReplaceAndRemove() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.setValue("a", forKey: "k")
        try await store.setValue("b", forKey: "k")
        #expect(try await store.value(forKey: "k") == "b")
        try await store.setValue(nil, forKey: "k")
        #expect(try await store.value(forKey: "k") == nil)
    }

    @Test func logsWhereItOpened() async throws {
        let recorder = RecordingLogger()
        let store = try ChatStore(path: nil, localNumber: Fixtures.me, logger: recorder.logger())
        await store.close()
        #expect(recorder.records.contains { $0.label == "store" && $0.level == .info && $0.message.contains("history open") })
    }

    // MARK: Named errors

    @Test func unwritablePathIsCannotOpen() throws {
        let path = "/nonexistent-\(UUID().uuidString)/history.sqlite"
        #expect {
            _ = try ChatStore(path: path, localNumber: Fixtures.me)
        } throws: { error in
            guard case .cannotOpen(let failed, let code, _) = error as? StoreError else { return false }
            return failed == path && code & 0xFF == 14  // SQLITE_CANTOPEN
        }
    }

    @Test func aDirectoryInTheWayIsCannotOpen() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            #expect {
                _ = try ChatStore(path: directory.path, localNumber: Fixtures.me)
            } throws: { error in
                if case .cannotOpen = error as? StoreError { return true }
                return false
            }
        }
    }

    @Test func garbageFileIsCorrupt() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("history.sqlite")
            try Data(repeating: 0x5A, count: 8192).write(to: url)
            #expect {
                _ = try ChatStore(path: url.path, localNumber: Fixtures.me)
            } throws: { error in
                guard case .corrupt(_, let code, _) = error as? StoreError else { return false }
                return code & 0xFF == 26  // SQLITE_NOTADB
            }
            #expect(try Data(contentsOf: url) == Data(repeating: 0x5A, count: 8192), "left untouched")
        }
    }

    @Test func newerSchemaIsRefused() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            do {
                let raw = try SQLiteDatabase(path: path)
                try raw.execute("PRAGMA user_version = 99")
                raw.close()
            }
            #expect(throws: StoreError.newerSchema(found: 99, supported: Schema.currentVersion)) {
                _ = try ChatStore(path: path, localNumber: Fixtures.me)
            }
        }
    }

    @Test func unreadableRoomRowIsMalformedRow() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            try await ChatStore(path: path, localNumber: Fixtures.me).close()
            do {
                let raw = try SQLiteDatabase(path: path)
                try raw.execute("INSERT INTO rooms (room) VALUES ('lobby')")
                raw.close()
            }
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            await #expect(throws: StoreError.malformedRow(table: "rooms", reason: "room is not public or dm:<n>")) {
                try await store.rooms()
            }
        }
    }

    @Test func closedStoreThrowsClosed() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        await store.close()
        await store.close()  // idempotent
        await #expect(throws: StoreError.closed) { try await store.insert(Fixtures.numbered(1)[0]) }
        await #expect(throws: StoreError.closed) { try await store.rooms() }
    }

    @Test func errorsDescribeThemselves() {
        let error = StoreError.cannotOpen(path: "/x/h.sqlite", code: 14, message: "unable to open database file")
        #expect(error.description.contains("/x/h.sqlite"))
        #expect(error.code == 14)
        #expect(StoreError.closed.code == nil)
    }
}
