import ChatCore
@testable import ChatStore
import Foundation
import Testing
import TestSupport

/// `warmUp`: a received message's turn rehearsed and rolled back, so the
/// first real one finds its statements prepared, and nothing of it stays.
@Suite struct StoreWarmUpTests {
    @Test func aWarmUpPreparesTheReceiveTurnAndLeavesNothing() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("h.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await store.virtualMachineSteps(of: SQL.insertMessage) == 0)
            await store.warmUp()
            #expect(try await store.virtualMachineSteps(of: SQL.insertMessage) > 0, "the insert ran once")
            #expect(try await store.virtualMachineSteps(of: SQL.containsMessage) > 0, "and the lookup")
            #expect(try await store.lastSeq() == 0)
            #expect(try await store.rooms().allSatisfy { $0.messageCount == 0 && $0.unreadCount == 0 })
            #expect(try await store.publicMessages(afterSeq: 0, limit: 10).isEmpty)

            // The first real message is the first row, counted once.
            var changes = StoreChanges()
            changes.messages = [Fixtures.message(at: Fixtures.base, idBits: 1)]
            let result = try await store.commit(changes)
            #expect(result.added.count == 1)
            #expect(try await store.lastSeq() == 1)
            #expect(try await store.rooms().first { $0.room == .publicRoom }?.unreadCount == 1)
            await store.close()
            let again = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await again.lastSeq() == 1)
            #expect(try await again.integrityCheck())
        }
    }

    /// An in-memory store counts rows toward its trim in memory: the
    /// rehearsal's row is not counted.
    @Test func aWarmUpLeavesTheInMemoryTrimCountAlone() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        var changes = StoreChanges()
        changes.messages = Fixtures.numbered(3)
        try await store.commit(changes)
        let before = await store.untrimmed
        await store.warmUp()
        #expect(await store.untrimmed == before)
        #expect(try await store.lastSeq() == 3)
    }
}
