import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// The pool unknown authors share: it keeps the newest and ages out the
/// oldest in the commit that goes over its budget, never anything outside
/// it, and leaves rooms, unread counts, pages, totals, catch-up and the
/// search index as if the aged-out rows had never been stored.
@Suite struct StoragePoolTests {
    static let stranger = NodeNumber(rawValue: 77)!

    /// A commit of `messages`, pooled if `pooled`, within `budget`.
    @discardableResult
    static func commit(_ store: ChatStore, _ messages: [Message], pooled: Bool, budget: Int?, now: Int64 = Fixtures.base,
                       marker: HistoryCursor? = nil) async throws -> StoreCommitResult {
        var changes = StoreChanges()
        changes.messages = messages
        if pooled { changes.pooled = Set(messages.map(\.id)) }
        changes.poolBudget = budget
        changes.now = now
        if let marker { changes.readMarkers[.publicRoom] = marker }
        return try await store.commit(changes)
    }

    static func all(_ store: ChatStore, _ room: RoomID = .publicRoom) async throws -> [Message] {
        try await store.page(room, after: nil, limit: 1000)
    }

    /// What the rooms table says must equal what the rows say.
    static func expectConsistent(_ store: ChatStore, _ room: RoomID = .publicRoom) async throws {
        let rows = try await all(store, room)
        let summary = try #require(try await store.summary(of: room))
        #expect(summary.messageCount == rows.count)
        #expect(summary.lastMessage == rows.last.map(HistoryCursor.init))
        let unread = rows.filter { row in row.senderNumber != Fixtures.me && summary.readMarker.map { HistoryCursor(row) > $0 } ?? true }
        #expect(summary.unreadCount == unread.count)
        // Pages of 7 backwards from the newest cover every row once, in order.
        var paged: [Message] = []
        var cursor: HistoryCursor?
        while true {
            let page = try await store.page(room, before: cursor, limit: 7)
            if page.isEmpty { break }
            paged.insert(contentsOf: page, at: 0)
            cursor = HistoryCursor(page.first!)
        }
        #expect(paged.map(\.id) == rows.map(\.id))
        // Totals per author and of the pool.
        let authors = Set(rows.map(\.senderNumber))
        let usage = try await store.usage(of: Array(authors) + [Self.stranger])
        for author in authors {
            let mine = rows.filter { $0.senderNumber == author }
            #expect(usage[author] == StorageUsage(messages: mine.count, bytes: mine.reduce(0) { $0 + StorageUsage.bytes(of: $1) }))
        }
        #expect(try await store.integrityCheck())
        try await store.checkSearchIndex()
    }

    @Test func thePoolKeepsItsNewestWithinItsBudgetAndNothingElseAgesOut() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            // Mine and a known peer's, outside the pool, oldest of all.
            let mine = Fixtures.message(at: Fixtures.base, idBits: 1, from: Fixtures.me, text: "my own words")
            let known = Fixtures.message(at: Fixtures.base + 1, idBits: 2, from: Fixtures.carol, text: "carol, known")
            try await Self.commit(store, [mine, known], pooled: false, budget: nil)
            let flood = (0..<60).map { n in
                Fixtures.message(at: Fixtures.base + 10 + Int64(n), idBits: UInt64(100 + n), from: Self.stranger,
                                 text: "flood \(n < 10 ? "0" : "")\(n) " + String(repeating: "x", count: 40))
            }
            let each = StorageUsage.bytes(of: flood[0])
            let budget = 10 * each
            // The marker after the 25th: the ones before it were read.
            var agedOut: [MessageID] = []
            for batch in 0..<6 {
                let part = Array(flood[(batch * 10)..<(batch * 10 + 10)])
                let result = try await Self.commit(store, part, pooled: true, budget: budget)
                if batch == 2 { try await store.markRead(.publicRoom, upTo: HistoryCursor(flood[25])) }
                agedOut += result.agedOut[.publicRoom] ?? []
                #expect(result.added.count == 10, "a new message is always stored")
                #expect(try await store.poolUsage().bytes <= budget)
            }
            let rows = try await Self.all(store)
            #expect(rows.map(\.content).prefix(2) == ["my own words", "carol, known"])
            #expect(rows.dropFirst(2).map(\.id) == flood.suffix(10).map(\.id), "the newest ten kept")
            #expect(Set(agedOut) == Set(flood.prefix(50).map(\.id)))
            #expect(try await store.poolUsage() == StorageUsage(messages: 10, bytes: budget))
            try await Self.expectConsistent(store)
            // Unread: the kept flood lies after the marker; carol's before it is read.
            #expect(try await store.summary(of: .publicRoom)?.unreadCount == 10)
            #expect(try await store.search(SearchQuery("flood 03 ")).messages.isEmpty, "aged out of the search index too")
            #expect(try await store.search(SearchQuery("flood 55")).messages.count == 1)
            // Catch-up reads in arrival order; numbers never go back.
            let seqs = try await store.publicMessages(afterSeq: 0, limit: 100).map(\.seq)
            #expect(seqs == seqs.sorted() && seqs.last == 62)
            try await Self.commit(store, [Fixtures.message(at: Fixtures.base + 100, idBits: 999, from: Fixtures.me)], pooled: false, budget: budget)
            #expect(try await store.lastSeq() == 63)
        }
    }

    @Test func anAuthorAgedOutEntirelyIsFirstSeenAgainAndAKnownOneLeavesThePool() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            let early = Fixtures.message(at: Fixtures.base, idBits: 1, from: Self.stranger)
            try await Self.commit(store, [early], pooled: true, budget: nil, now: 1000)
            #expect(try await store.standing(of: [Self.stranger])[Self.stranger] == AuthorStanding(firstSeen: 1000, pooledMessages: 1))
            // Bob's pooled messages, then bob becomes known: they leave the pool.
            let fromBob = Fixtures.numbered(3)
            try await Self.commit(store, fromBob, pooled: true, budget: nil, now: 2000)
            var changes = StoreChanges()
            changes.unpooled = [Fixtures.bob]
            try await store.commit(changes)
            #expect(try await store.standing(of: [Fixtures.bob])[Fixtures.bob] == AuthorStanding(firstSeen: 2000, pooledMessages: 0))
            #expect(try await store.poolUsage().messages == 1)
            // A budget of nothing: the stranger's one message ages out, bob's stay.
            try await Self.commit(store, [Fixtures.message(at: Fixtures.base + 9, idBits: 9, from: Fixtures.carol)],
                                  pooled: true, budget: 0, now: 3000)
            let left = try await Self.all(store)
            #expect(!left.contains { $0.senderNumber == Self.stranger })
            #expect(left.filter { $0.senderNumber == Fixtures.bob }.count == 3)
            #expect(try await store.standing(of: [Self.stranger]).isEmpty, "no rows, no standing")
            try await Self.expectConsistent(store)
        }
    }

    @Test func aDirectRoomAgedOutEntirelyKeepsItsConversation() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            let request = Fixtures.message(at: Fixtures.base, idBits: 1, room: .direct(Self.stranger), from: Self.stranger)
            var changes = StoreChanges()
            changes.messages = [request]
            changes.pooled = [request.id]
            changes.conversations[Self.stranger] = ConversationRow(nickname: "stranger", state: .incomingRequest)
            try await store.commit(changes)
            let result = try await Self.commit(store, [Fixtures.message(at: Fixtures.base + 5, idBits: 5, from: Fixtures.carol)],
                                               pooled: true, budget: 0)
            #expect(result.agedOut[.direct(Self.stranger)] == [request.id])
            #expect(result.unread[.direct(Self.stranger)] == 0)
            let room = try #require(try await store.summary(of: .direct(Self.stranger)))
            #expect(room.messageCount == 0 && room.lastMessage == nil && room.unreadCount == 0 && room.dmState == .incomingRequest)
            try await Self.expectConsistent(store, .direct(Self.stranger))
        }
    }
}
