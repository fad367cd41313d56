import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// The per-author totals behind the per-peer quota stay equal to what the
/// rows hold: after inserts, duplicates, a reopen, an upgrade and a trim.
@Suite struct AuthorUsageTests {
    static func expected(_ messages: [Message]) -> [NodeNumber: StorageUsage] {
        var usage: [NodeNumber: StorageUsage] = [:]
        for message in messages { usage[message.senderNumber, default: StorageUsage()].add(StorageUsage.bytes(of: message)) }
        return usage
    }

    /// A commit that names no time takes an author's first-seen time from
    /// the store's clock, not the wall clock.
    @Test func firstSeenComesFromTheStoresClock() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let store = try ChatStore(path: nil, localNumber: Fixtures.me, clock: clock)
        try await store.insert(contentsOf: Fixtures.numbered(2))
        clock.advance(by: .seconds(60))
        try await store.insert(Fixtures.message(at: Fixtures.base, idBits: 700, from: Fixtures.carol))
        let standing = try await store.standing(of: [Fixtures.bob, Fixtures.carol])
        #expect(standing[Fixtures.bob]?.firstSeen == 1_800_000_000_000)
        #expect(standing[Fixtures.carol]?.firstSeen == 1_800_000_060_000)
    }

    @Test func insertsCountPerAuthorOnceAndSurviveAReopen() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            var signed = Fixtures.message(at: Fixtures.base, idBits: 500, text: "signed 안녕 \u{0}nul")
            signed.signature = "c2lnbmF0dXJl"
            signed.authorKey = "a2V5"
            let fromCarol = (0..<3).map { Fixtures.message(at: Fixtures.base + Int64($0), idBits: UInt64(100 + $0),
                                                            room: .direct(Fixtures.carol), from: Fixtures.carol) }
            let messages = Fixtures.numbered(7) + fromCarol
                + [signed] + [Fixtures.message(at: Fixtures.base, idBits: 600, from: Fixtures.me)]
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            try await store.insert(contentsOf: messages)
            try await store.insert(contentsOf: Array(messages.prefix(4)))  // duplicates count nothing
            let authors = [Fixtures.bob, Fixtures.carol, Fixtures.me, NodeNumber(rawValue: 99)!]
            let want = Self.expected(messages)
            #expect(want[Fixtures.bob]?.messages == 8 && want[Fixtures.carol]?.messages == 3)
            #expect(try await store.usage(of: authors) == want)
            // The SQL recount (used by the migration and trims) agrees byte for byte.
            try await store.recountUsage()
            #expect(try await store.usage(of: authors) == want)
            await store.close()
            let reopened = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await reopened.usage(of: authors) == want)
        }
    }

    @Test func aCommitRefusedByAFullFileCountsNothing() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me,
                                      durability: .full, maxBytes: 128 * 1024)
            var failed = false
            for batch in 0..<200 where !failed {
                var changes = StoreChanges()
                changes.messages = (0..<50).map { Fixtures.message(at: Fixtures.base + Int64(batch * 50 + $0), idBits: UInt64(batch * 50 + $0),
                                                                   text: String(repeating: "x", count: 200)) }
                do { try await store.commit(changes) } catch { failed = true }
            }
            #expect(failed)
            let rows = try await Self.all(store)
            #expect(try await store.usage(of: [Fixtures.bob]) == Self.expected(rows))
        }
    }

    static func all(_ store: ChatStore) async throws -> [Message] {
        var rows: [Message] = []
        var cursor: HistoryCursor?
        while true {
            let page = try await store.page(.publicRoom, after: cursor, limit: 1000)
            rows += page
            guard let last = page.last, page.count == 1000 else { return rows }
            cursor = HistoryCursor(last)
        }
    }

    @Test func aFileFromBeforeTheTotalsIsCountedWhenUpgraded() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let old = try SQLiteDatabase(path: path)
            for migration in Schema.migrations.prefix(4) { try old.execute(migration) }
            try old.execute("PRAGMA user_version = 4")
            try old.execute("""
                INSERT INTO messages (id, room, sent_at, sender, nickname, content, seq)
                VALUES (x'01934c04c0097a009b00000000000008', 'public', 1732147200000, 2, 'bob', 'old', 1),
                       (x'01934c04c0097a009b00000000000009', 'public', 1732147200001, 2, 'bob', 'older 안', 2)
                """)
            old.close()
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            let rows = try await store.page(.publicRoom, before: nil, limit: 10)
            #expect(try await store.usage(of: [Fixtures.bob]) == Self.expected(rows))
            #expect(try await store.usage(of: [Fixtures.bob])[Fixtures.bob]?.bytes == 2 * (64 + 3) + 3 + 9)
        }
    }

    @Test func anInMemoryTrimShrinksTheTrimmedAuthorsShare() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let total = ChatStore.inMemoryWindow + ChatStore.inMemoryWindow / 5
        let all = Fixtures.numbered(total)
        var next = 0
        while next < total {
            try await store.insert(contentsOf: Array(all[next..<min(next + 2000, total)]))
            next += 2000
        }
        let kept = try await Self.all(store)
        #expect(kept.count < total)
        #expect(try await store.usage(of: [Fixtures.bob]) == Self.expected(kept))
    }
}
