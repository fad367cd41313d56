import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// The key ledger's tables: written all or nothing, read back after a
/// reopen, an evicted key takes its pins along, and a file from before the
/// ledger (schema 9) is upgraded with its history intact.
@Suite struct KeyLedgerStoreTests {
    static let alice = String(repeating: "A", count: 43) + "="
    static let mallory = String(repeating: "M", count: 43) + "="

    @Test func rowsSurviveAReopen() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            var changes = KeyChanges()
            changes.keys = [
                KeyRecord(key: Self.alice, nickname: "alice", firstSeen: 1_000, lastSeen: 5_000, trust: .verified, verifiedAt: 4_000),
                KeyRecord(key: Self.mallory, nickname: "alice", firstSeen: 6_000, lastSeen: 6_000),
            ]
            changes.pins = [KeyPin(name: "alice", key: Self.alice, pinnedAt: 1_000)]
            try await store.commitKeys(changes)
            await store.close()

            let reopened = try ChatStore(path: path, localNumber: Fixtures.me)
            let rows = try await reopened.keyLedger()
            #expect(rows.keys == changes.keys)
            #expect(rows.pins == changes.pins)
        }
    }

    @Test func anEvictedKeyTakesItsPinsAlong() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        var first = KeyChanges()
        first.keys = [KeyRecord(key: Self.mallory, nickname: "bob", firstSeen: 1, lastSeen: 1)]
        first.pins = [KeyPin(name: "bob", key: Self.mallory, pinnedAt: 1), KeyPin(name: "b0b", key: Self.mallory, pinnedAt: 1)]
        try await store.commitKeys(first)
        var evict = KeyChanges()
        evict.removedKeys = [Self.mallory]
        evict.keys = [KeyRecord(key: Self.alice, nickname: "bob", firstSeen: 2, lastSeen: 2)]
        evict.pins = [KeyPin(name: "bob", key: Self.alice, pinnedAt: 2)]
        try await store.commitKeys(evict)
        let rows = try await store.keyLedger()
        #expect(rows.keys.map(\.key) == [Self.alice])
        #expect(rows.pins == [KeyPin(name: "bob", key: Self.alice, pinnedAt: 2)])
    }

    @Test func aBadRowWritesNothing() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        var changes = KeyChanges()
        changes.pins = [KeyPin(name: "alice", key: Self.alice, pinnedAt: 1)]
        // Not a 32-byte key in base64: the CHECK refuses it, and the pin
        // planned in the same write goes too.
        changes.keys = [KeyRecord(key: "short", nickname: "alice", firstSeen: 1, lastSeen: 1)]
        await #expect(throws: StoreError.self) { try await store.commitKeys(changes) }
        #expect(try await store.keyLedger() == KeyLedgerRows())
    }

    @Test func aFileFromBeforeTheLedgerIsUpgradedWithItsHistory() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("history.sqlite").path
            let before = try #require(Schema.migrations.firstIndex(of: Schema.keyLedger))
            let old = try SQLiteDatabase(path: path)
            for migration in Schema.migrations.prefix(before) { try old.execute(migration) }
            try old.execute("PRAGMA user_version = \(before)")
            old.close()
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            try await store.insert(Fixtures.message(at: Fixtures.base, idBits: 1, text: "kept"))
            await store.close()
            // Reopened: at the current version, history readable, ledger empty and writable.
            let upgraded = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(try await upgraded.pragma("user_version") == String(Schema.currentVersion))
            #expect(try await upgraded.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["kept"])
            #expect(try await upgraded.keyLedger() == KeyLedgerRows())
            var changes = KeyChanges()
            changes.keys = [KeyRecord(key: Self.alice, nickname: "alice", firstSeen: 1, lastSeen: 1)]
            try await upgraded.commitKeys(changes)
            #expect(try await upgraded.keyLedger().keys.count == 1)
        }
    }
}
