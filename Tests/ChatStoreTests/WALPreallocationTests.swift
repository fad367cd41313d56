import ChatCore
import Foundation
@testable import ChatStore
import Testing
import TestSupport

/// A file store's WAL gets its working size in zeros at open, past what
/// SQLite wrote and never over it; a crash image taken with the zeros in
/// place opens with every committed message.
@Suite struct WALPreallocationTests {
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? -1
    }

    @Test func aFileStoreOpensWithItsWALAtWorkingSize() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(Self.size(path + "-wal") >= WALPreallocation.size(pageSize: 4096))
            await store.close()
        }
    }

    @Test func aCrashImageWithTheZerosOpensWithEveryCommittedMessage() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            // 80 one-message commits: about 700 WAL frames with the search
            // index (Schema+Search.swift), short of the first checkpoint.
            let messages = Fixtures.numbered(80)
            for message in messages { #expect(try await store.insert(message)) }
            // The files as a power cut would leave them (synchronous=FULL:
            // every commit is in the WAL); no -shm, so the copy recovers
            // from the WAL alone.
            let image = directory.appendingPathComponent("image.sqlite").path
            try FileManager.default.copyItem(atPath: path, toPath: image)
            var wal = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
            await store.close()
            #expect(wal.count >= WALPreallocation.size(pageSize: 4096))
            // Cut the image's WAL after its last frame (SQLite wrote the
            // frames from the top; 80 commits do not reach a checkpoint),
            // so opening it must recover the frames and then grow the file.
            let frame = 24 + 4096
            let lastWritten = try #require(wal.lastIndex { $0 != 0 })
            let end = 32 + (lastWritten + 1 - 32 + frame - 1) / frame * frame
            #expect(end < WALPreallocation.size(pageSize: 4096))
            wal.removeLast(wal.count - end)
            try Data(wal).write(to: URL(fileURLWithPath: image + "-wal"))

            let recovered = try ChatStore(path: image, localNumber: Fixtures.me)
            #expect(Self.size(image + "-wal") >= WALPreallocation.size(pageSize: 4096))
            #expect(try await recovered.summary(of: .publicRoom)?.messageCount == messages.count)
            #expect(try await recovered.page(.publicRoom, before: nil, limit: 2).map(\.content) == ["m78", "m79"])
            #expect(try await recovered.integrityCheck())
            // And it goes on storing after the recovered frames.
            #expect(try await recovered.insert(Fixtures.message(at: Fixtures.base + 999_000, idBits: 999_999, text: "after")))
            await recovered.close()
            let reopened = try ChatStore(path: image, localNumber: Fixtures.me)
            #expect(try await reopened.summary(of: .publicRoom)?.messageCount == messages.count + 1)
            await reopened.close()
        }
    }

    @Test func anotherConnectionCannotCommitWhileTheZerosAreWritten() async throws {
        // The sqlite3 shell or a backup may have the file open. A commit of
        // theirs between the size read and the zeros would be zeroed: the
        // preallocation holds the write lock, so theirs waits or fails.
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("shared.sqlite").path
            let store = try SQLiteDatabase(path: path)
            try store.execute("PRAGMA journal_mode = WAL")
            try store.execute("CREATE TABLE t (x)")
            let shell = try SQLiteDatabase(path: path)
            try shell.execute("PRAGMA busy_timeout = 0")
            var theirs: StoreError?
            try ChatStore.preallocateWAL(store, path: path, logger: .disabled) {
                do throws(StoreError) { try shell.execute("INSERT INTO t VALUES (1)") } catch { theirs = error }
            }
            guard case .busy = theirs else {
                Issue.record("the other connection committed while the WAL grew: \(String(describing: theirs))")
                return
            }
            #expect(Self.size(path + "-wal") >= WALPreallocation.size(pageSize: 4096))
            // Once the lock is released, it commits, and every connection reads it.
            try shell.execute("INSERT INTO t VALUES (2)")
            let count = try store.withStatement("SELECT count(*) FROM t") { statement throws(StoreError) in
                try statement.step() ? statement.int64(0) : -1
            }
            #expect(count == 1)
            #expect(try store.withStatement("PRAGMA integrity_check") { statement throws(StoreError) in
                try statement.step() ? statement.string(0) : nil
            } == "ok")
        }
    }

    @Test func onlyBytesPastTheEndAreWritten() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("x-wal").path
            let original = (0..<100).map { UInt8($0) }
            try Data(original).write(to: URL(fileURLWithPath: path))
            #expect(WALPreallocation.extend(walPath: path, pageSize: 512) == .grown(from: 100))
            let grown = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(grown.count == WALPreallocation.size(pageSize: 512))
            #expect(Array(grown.prefix(100)) == original)
            #expect(grown.dropFirst(100).allSatisfy { $0 == 0 })
            #expect(WALPreallocation.extend(walPath: path, pageSize: 512) == .large)
            guard case .skipped = WALPreallocation.extend(walPath: path + "-missing", pageSize: 512) else {
                Issue.record("a missing WAL is not created")
                return
            }
        }
    }
}
