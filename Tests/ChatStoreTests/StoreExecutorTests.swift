import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// Where a store's calls run: a file's fsync must never hold a thread of
/// the cooperative pool; an in-memory store never waits on a disk and
/// stays on the pool, where a call is an actor switch, not a thread wake.
@Suite struct StoreExecutorTests {
    @Test func aFileStoreRunsOnItsOwnQueue() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            #expect(await store.runsOnItsOwnQueue())
            #expect(try await store.insert(contentsOf: Fixtures.numbered(3)) == 3)
            await store.close()
        }
    }

    /// A lone step's turn (`lookUpAndCommit`, an extension of the actor
    /// protocol, so isolated to the store) runs on the store's own
    /// executor, plan included: it crosses to the file's queue once, not
    /// once for the lookup and again for the commit.
    @Test func aStepsTurnRunsOnTheStoresQueueFromLookupToCommit() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            let messages = Fixtures.numbered(2)
            #expect(try await store.insert(contentsOf: [messages[0]]) == 1)
            let turn = await store.lookUpAndCommit(ids: messages.map(\.id), authors: []) { found in
                var changes = StoreChanges()
                changes.messages = [messages[1]]
                let onQueue = DispatchQueue.getSpecific(key: StoreQueue.marker) != nil
                return ((onQueue: onQueue, stored: found?.stored ?? []), changes)
            }
            guard case .committed(let planned, .success(let result)) = turn else {
                Issue.record("not committed: \(turn)")
                return
            }
            #expect(planned.onQueue, "the plan ran on the store's queue")
            #expect(planned.stored == [messages[0].id])
            #expect(result.added == [messages[1].id])
            // A declined plan writes nothing and hands the lookup back.
            let declined: StoreTurn<Int> = await store.lookUpAndCommit(ids: [messages[1].id], authors: []) { _ in nil }
            guard case .lookedUp(let found) = declined else {
                Issue.record("planned: \(declined)")
                return
            }
            #expect(found?.stored == [messages[1].id])
            await store.close()
        }
    }

    @Test func anInMemoryStoreRunsOnThePoolAndStaysSerial() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        #expect(await store.runsOnItsOwnQueue() == false)
        // Many concurrent callers: every insert lands once, none interleave.
        let messages = Fixtures.numbered(200)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for chunk in stride(from: 0, to: messages.count, by: 10) {
                let slice = Array(messages[chunk..<(chunk + 10)])
                group.addTask { try await store.insert(contentsOf: slice) }
            }
            var total = 0
            for try await inserted in group { total += inserted }
            #expect(total == 200)
        }
        #expect(try await store.page(.publicRoom, before: nil, limit: 1000).count == 200)
        #expect(try await store.integrityCheck())
    }

    /// Several stores in one process (nodes in a test or a benchmark)
    /// contended on the global mutex behind SQLite's memory statistics.
    @Test func sqliteKeepsNoMemoryStatistics() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        #expect(try await store.insert(contentsOf: Fixtures.numbered(20)) == 20)
        #expect(ChatStore.keepsMemoryStatistics == false)
    }
}
