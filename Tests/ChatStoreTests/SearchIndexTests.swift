import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// The `/search` index follows the messages table: written in the same
/// transaction (a failed commit leaves nothing), emptied by trims, built
/// once when an older file is upgraded.
@Suite struct SearchIndexTests {
    @Test func aFailedCommitLeavesNoIndexRow() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("h.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            try await store.insert(Fixtures.message(at: Fixtures.base, idBits: 1, text: "first zebra"))
            // A second connection makes one setting fail, after the
            // commit's messages are written: the whole commit rolls back.
            let other = try SQLiteDatabase(path: path)
            try other.execute("CREATE TRIGGER boom BEFORE INSERT ON meta WHEN new.key = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END")
            other.close()
            let lost = Fixtures.message(at: Fixtures.base + 1, idBits: 2, text: "second zebra")
            var changes = StoreChanges()
            changes.messages = [lost]
            changes.settings["boom"] = "1"
            await #expect(throws: StoreError.self) { try await store.commit(changes) }
            #expect(try await store.searchIndexCount() == 1)
            #expect(try await store.search(SearchQuery("zebra")).messages.map(\.content) == ["first zebra"])
            try await store.checkSearchIndex()
            // The retry succeeds and is indexed once.
            changes.settings = [:]
            #expect(try await store.commit(changes).added == [lost.id])
            #expect(try await store.search(SearchQuery("zebra")).messages.map(\.content) == ["second zebra", "first zebra"])
            try await store.checkSearchIndex()
        }
    }

    /// The index is written behind the messages (`searchFoldThreshold` at
    /// a time): what waits is found by a scan, what is folded by the index,
    /// in one newest-first list with no gap and no repeat at the seam.
    @Test func messagesWaitingForTheIndexAreFoundAndTheSeamIsExact() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let total = ChatStore.searchFoldThreshold * 3 + 100
        for index in 0..<total {
            try await store.insert(Fixtures.message(at: Fixtures.base + Int64(index), idBits: UInt64(index), text: "zebra \(index)"))
        }
        let indexed = try await store.indexedUpTo()
        #expect(indexed > 0 && indexed < Int64(total), "some folded, some waiting: \(indexed) of \(total)")
        var seen: [String] = []
        var before: Int64?
        repeat {
            let page = try await store.search(SearchQuery("zebra"), before: before, limit: 50)
            seen += page.messages.map(\.content)
            before = page.continueBefore
        } while before != nil
        #expect(seen == (0..<total).reversed().map { "zebra \($0)" })
        try await store.checkSearchIndex()
    }

    /// An external-content index must never be told to delete a row it
    /// does not hold: trimming rows that were not folded yet leaves it sound.
    @Test func trimmingRowsNotFoldedYetLeavesTheIndexSound() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let total = ChatStore.inMemoryWindow * 2  // past the window and its tenth: a trim
        let all = (0..<total).map { Fixtures.message(at: Fixtures.base + Int64($0), idBits: UInt64($0), text: "row \($0) ends") }
        try await store.insert(contentsOf: Array(all.prefix(ChatStore.searchFoldThreshold / 4)))
        #expect(try await store.indexedUpTo() == 0, "too few to fold")
        try await store.insert(contentsOf: Array(all.dropFirst(ChatStore.searchFoldThreshold / 4)))
        try await store.checkSearchIndex()
        #expect(try await store.search(SearchQuery("row 3 ends")).messages.isEmpty, "trimmed")
        #expect(try await store.search(SearchQuery("row \(total - 1) ends")).messages.count == 1)
    }

    @Test func duplicatesAreIndexedOnce() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let message = Fixtures.message(at: Fixtures.base, idBits: 1, text: "only once")
        try await store.insert(message)
        var replay = message
        replay.content = "a replay's other text"
        try await store.insert(contentsOf: [message, replay, message])
        #expect(try await store.searchIndexCount() == 1)
        #expect(try await store.search(SearchQuery("other")).hits.isEmpty)
        try await store.checkSearchIndex()
    }

    @Test func messagesTrimmedFromAnInMemoryStoreLeaveTheIndex() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let total = ChatStore.inMemoryWindow * 2
        let all = (0..<total).map { Fixtures.message(at: Fixtures.base + Int64($0), idBits: UInt64($0), text: "row \($0) ends") }
        var next = 0
        while next < total {
            try await store.insert(contentsOf: Array(all[next..<min(next + 2000, total)]))
            next += 2000
        }
        var kept = 0
        var cursor: HistoryCursor?
        while let last = try await store.page(.publicRoom, after: cursor, limit: 1000).last {
            kept += try await store.page(.publicRoom, after: cursor, limit: 1000).count
            cursor = HistoryCursor(last)
        }
        #expect(kept < total)
        #expect(try await store.searchIndexCount() == kept)
        #expect(try await store.search(SearchQuery("row 0 ends")).hits.isEmpty, "the oldest were trimmed")
        #expect(try await store.search(SearchQuery("row \(total - 1) ends")).hits.count == 1)
        try await store.checkSearchIndex()
    }

    @Test func anOlderFileIsIndexedOnceWhenUpgraded() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            // The version just before the search index (later migrations follow it).
            let previous = Int32(try #require(Schema.migrations.firstIndex(of: Schema.searchIndex)))
            let old = try SQLiteDatabase(path: path)
            for migration in Schema.migrations.prefix(Int(previous)) { try old.execute(migration) }
            try old.execute("PRAGMA user_version = \(previous)")
            try old.execute("""
                INSERT INTO messages (id, room, sent_at, sender, nickname, content, seq)
                VALUES (x'01934c04c0097a009b00000000000008', 'public', 1732147200000, 2, 'bob', 'old 안녕하세요 everyone', 1),
                       (x'01934c04c0097a009b00000000000009', 'dm:2', 1732147200001, 2, 'bob', 'Older DM text', 2)
                """)
            old.close()
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await store.pragma("user_version") == String(Schema.currentVersion))
            #expect(try await store.searchIndexCount() == 2)
            #expect(try await store.search(SearchQuery("안녕하세요")).messages.map(\.content) == ["old 안녕하세요 everyone"])
            #expect(try await store.search(SearchQuery("older dm")).messages.map(\.room) == [.direct(Fixtures.bob)])
            try await store.insert(Fixtures.message(at: Fixtures.base + 5, idBits: 5, text: "new 안녕하세요"))
            await store.close()
            // Reopening does not index again: still one row per message.
            let reopened = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await reopened.searchIndexCount() == 3)
            #expect(try await reopened.search(SearchQuery("안녕하세요")).hits.map(\.seq) == [3, 1])
            try await reopened.checkSearchIndex()
        }
    }

    @Test func searchesUseTheIndexAndTheSequenceIndex() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let indexed = try await store.queryPlan(SQL.searchIndexed)
        #expect(indexed.contains { $0.contains("VIRTUAL TABLE") }, "\(indexed)")
        #expect(indexed.contains { $0.contains("messages_seq") }, "\(indexed)")
        let scan = try await store.queryPlan(SQL.searchScan)
        #expect(scan.contains { $0.contains("messages_seq") && $0.contains("seq>? AND seq<?") }, "\(scan)")
    }
}
