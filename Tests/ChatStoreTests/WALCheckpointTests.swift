import ChatCore
import Foundation
@testable import ChatStore
import Testing
import TestSupport

/// A file store's WAL is checkpointed on the checkpointer's own thread,
/// not inside a commit, while commits go on; nothing is lost, and closing
/// the store removes the WAL.
@Suite struct WALCheckpointTests {
    @Test func checkpointsRunInTheBackgroundAndLoseNothing() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me, durability: .normal)
            let checkpointer = try #require(store.checkpointer)
            // One commit per message: each leaves a few pages in the WAL,
            // well past the 1000 that start a checkpoint.
            let messages = Fixtures.numbered(1500)
            for message in messages { #expect(try await store.insert(message)) }
            #expect(try await store.integrityCheck())
            // Read after `close`, which waits for a checkpoint already handed
            // to the checkpointer's thread: right after the last commit that
            // thread may not have run yet (a busy machine), which says
            // nothing about the store.
            await store.close()
            let counts = checkpointer.counts.withLock { $0 }
            #expect(counts.background >= 1, "the WAL passed \(WALCheckpointer.pagesBeforeCheckpoint) pages")
            #expect(counts.inline == 0, "no commit had to checkpoint itself")
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection removes the WAL")

            let reopened = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await reopened.summary(of: .publicRoom)?.messageCount == messages.count)
            #expect(try await reopened.page(.publicRoom, before: nil, limit: 3).map(\.content) == ["m1497", "m1498", "m1499"])
            await reopened.close()
        }
    }

    @Test func anInMemoryStoreHasNoCheckpointer() throws {
        #expect(try ChatStore(path: nil, localNumber: Fixtures.me).checkpointer == nil)
    }
}
