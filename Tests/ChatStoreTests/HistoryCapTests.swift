import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// `--max-history` bounds the files, write-ahead log included: under a
/// flood of unknown authors' messages the database, its WAL and its
/// shared memory never take more than the cap plus `WALBound.margin`, and
/// no commit is refused (the pool ages out instead).
@Suite struct HistoryCapTests {
    static func flood(_ batch: Int, size: Int) -> [Message] {
        (0..<size).map { n in
            let index = batch * size + n
            var message = Fixtures.message(at: Fixtures.base + Int64(index), idBits: UInt64(index),
                                           from: NodeNumber(rawValue: UInt64(1000 + index % 1000))!,
                                           text: "flood \(index) " + String(repeating: "y", count: 150))
            message.signature = String(repeating: "s", count: 88)
            message.authorKey = String(repeating: "k", count: 44)
            return message
        }
    }

    @Test(arguments: [1, 2, 4]) func aFloodNeverTakesTheFilesPastTheCapAndItsMargin(mib: Int) async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let cap = mib * 1_048_576
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me,
                                      durability: .full, maxBytes: cap)
            let batch = WALBound.commitBatch(cap: cap)
            var largest = 0
            // About four times the cap in counted bytes; the pool's budget is the default share.
            let batches = 4 * cap / (batch * 400) + 1
            for n in 0..<batches {
                var changes = StoreChanges()
                changes.messages = Self.flood(n, size: batch)
                changes.pooled = Set(changes.messages.map(\.id))
                changes.poolBudget = cap / 8
                let result = try await store.commit(changes)
                #expect(result.added.count == batch)
                let files = await store.fileBytes()
                largest = max(largest, files.database + files.wal + files.shm)
                // The user's own message always goes in too.
                if n % 10 == 0 {
                    var mine = StoreChanges()
                    mine.messages = [Fixtures.message(at: Fixtures.base + 1_000_000 + Int64(n), idBits: UInt64(n), from: Fixtures.me)]
                    #expect(try await store.commit(mine).added.count == 1)
                }
            }
            #expect(largest <= cap + WALBound.margin(cap: cap), "files reached \(largest) bytes")
            #expect(try await store.integrityCheck())
            try await store.checkSearchIndex()
        }
    }

    /// No pool budget at all: the cap's own pressure ages the pool out.
    @Test func withoutABudgetTheCapItselfAgesThePoolOut() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let cap = 2 * 1_048_576
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me,
                                      durability: .full, maxBytes: cap)
            let batch = WALBound.commitBatch(cap: cap)
            var largest = 0
            for n in 0..<(6 * cap / (batch * 400)) {
                var changes = StoreChanges()
                changes.messages = Self.flood(n, size: batch)
                changes.pooled = Set(changes.messages.map(\.id))
                #expect(try await store.commit(changes).added.count == batch)
                let files = await store.fileBytes()
                largest = max(largest, files.database + files.wal + files.shm)
            }
            #expect(largest <= cap + WALBound.margin(cap: cap), "files reached \(largest) bytes")
            #expect(try await store.integrityCheck())
        }
    }
}
