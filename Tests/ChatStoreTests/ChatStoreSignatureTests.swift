import ChatCore
import Foundation
import Testing
@testable import ChatStore

/// The author signature and key of public messages are stored with them
/// and read back by every query, and an older file gains the columns.
@Suite struct ChatStoreSignatureTests {
    @Test func signatureAndKeyComeBackFromEveryRead() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        var signed = Fixtures.message(at: Fixtures.base, idBits: 1)
        signed.signature = "c2lnbmF0dXJl"
        signed.authorKey = "a2V5"
        let unsigned = Fixtures.message(at: Fixtures.base + 1, idBits: 2)
        try await store.insert(contentsOf: [signed, unsigned])
        #expect(try await store.message(signed.id) == signed)
        #expect(try await store.message(unsigned.id)?.signature == nil)
        #expect(try await store.page(.publicRoom, before: nil, limit: 10) == [signed, unsigned])
        let after = try await store.messages(in: .publicRoom, after: HistoryCursor.justBefore(millis: Fixtures.base), limit: 10)
        #expect(after.first?.authorKey == "a2V5")
    }

    @Test func versionTwoFileUpgradesKeepingItsMessages() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let old = try SQLiteDatabase(path: path)
            try old.execute(Schema.migrations[0])
            try old.execute(Schema.migrations[1])
            try old.execute("PRAGMA user_version = 2")
            // A row as a version-2 node wrote it: no signature columns.
            try old.execute("""
                INSERT INTO messages (id, room, sent_at, sender, nickname, content)
                VALUES (x'01934c04c0097a009b00000000000008', 'public', 1732147200000, 2, 'bob', 'old')
                """)
            old.close()

            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            let messages = try await store.page(.publicRoom, before: nil, limit: 10)
            #expect(messages.map(\.content) == ["old"])
            #expect(messages.first?.signature == nil && messages.first?.authorKey == nil)
            var signed = Fixtures.message(at: Fixtures.base + 5, idBits: 9)
            signed.signature = "c2ln"
            signed.authorKey = "a2V5"
            try await store.insert(signed)
            await store.close()
            let reopened = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await reopened.message(signed.id) == signed)
        }
    }
}
