import ChatCore
@testable import ChatStore
import Foundation
import Testing
import TestSupport

/// The one write a file store commits without its own fsync: `delivered`
/// marks alone (Durability.md). SQLite's own `synchronous` value is read
/// inside each write transaction, just before its COMMIT, so these fail if
/// the relaxed level reaches any other write or outlives its transaction.
@Suite struct DeliveredMarkDurabilityTests {
    static let normal: Int64 = 1, full: Int64 = 2

    func dm(_ n: UInt64) -> Message {
        Fixtures.message(at: Fixtures.base + Int64(n), idBits: n, room: .direct(Fixtures.bob), from: Fixtures.me)
    }

    func commit(_ store: ChatStore, _ build: (inout StoreChanges) -> Void) async throws {
        var changes = StoreChanges()
        build(&changes)
        try await store.commit(changes)
    }

    @Test func onlyACommitOfDeliveredMarksRunsAtNormalAndFullComesBackAfterIt() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            try await store.recordSynchronousAtCommits()
            let full = Self.full, normal = Self.normal
            // Each write, and the level its transaction committed at.
            try await commit(store) { $0.messages = [dm(1), dm(2), dm(3)]; for n: UInt64 in 1...3 { $0.setDelivery(.queued, for: dm(n).id) } }
            try await commit(store) { $0.setDelivery(.sent, for: dm(1).id) }
            try await commit(store) { $0.setDelivery(.delivered, for: dm(1).id) }
            #expect(try await store.pragma("synchronous") == "\(full)", "restored after the mark's commit")
            try await commit(store) { $0.setDelivery(.delivered, for: dm(2).id); $0.setDelivery(.failed, for: dm(3).id) }
            try await commit(store) { $0.setDelivery(.delivered, for: dm(2).id); $0.messages = [Fixtures.message(at: Fixtures.base, idBits: 9)] }
            try await commit(store) { $0.messages = [dm(4)]; $0.setDelivery(.queued, for: dm(4).id) }
            try await commit(store) { $0.setDelivery(.delivered, for: dm(4).id) }
            try await commit(store) { $0.setDelivery(.delivered, for: dm(5).id); $0.settings["catchup.2"] = "e:1" }
            #expect(try await store.synchronousAtCommits() == [full, full, normal, full, full, full, normal, full])
            #expect(try await store.pragma("synchronous") == "\(full)")
            #expect(try await store.delivery(of: dm(1).id) == .delivered)
            #expect(try await store.delivery(of: dm(2).id) == .delivered)
            #expect(try await store.delivery(of: dm(4).id) == .delivered)
        }
    }

    @Test func aDeliveredMarkThatFailsLeavesNothingAndTheNextWriteIsFull() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            try await commit(store) { $0.messages = [dm(1), dm(2)]; $0.setDelivery(.sent, for: dm(1).id); $0.setDelivery(.sent, for: dm(2).id) }
            try await store.recordSynchronousAtCommits()
            // The mark's own statement fails inside its (relaxed) transaction.
            try await store.run("""
                CREATE TEMP TRIGGER refuse_delivered BEFORE UPDATE OF delivery ON main.messages
                WHEN NEW.delivery = 'delivered' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
            await #expect(throws: StoreError.self) { try await commit(store) { $0.setDelivery(.delivered, for: dm(1).id) } }
            #expect(try await store.pragma("synchronous") == "\(Self.full)", "restored after the failed write")
            #expect(try await store.delivery(of: dm(1).id) == .sent)
            // Writes outside `commit` (their own implicit transactions) and the next commit: FULL.
            try await store.setDelivery(.sent, for: dm(2).id)
            #expect(try await store.pragma("synchronous") == "\(Self.full)")
            try await commit(store) { $0.messages = [dm(3)]; $0.setDelivery(.queued, for: dm(3).id) }
            try await store.run("DROP TRIGGER refuse_delivered")
            try await commit(store) { $0.setDelivery(.delivered, for: dm(1).id) }
            #expect(try await store.synchronousAtCommits() == [Self.full, Self.normal])
            #expect(try await store.delivery(of: dm(1).id) == .delivered)
        }
    }

    @Test func aStoreThatIsNotAFullFileInWALModeNeverSwitches() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let normalStore = try ChatStore(path: directory.appendingPathComponent("n.sqlite").path, localNumber: Fixtures.me,
                                            durability: .normal)
            let memory = try ChatStore(path: nil, localNumber: Fixtures.me)
            for store in [normalStore, memory] {
                let before = try await store.pragma("synchronous")
                try await store.recordSynchronousAtCommits()
                try await commit(store) { $0.messages = [dm(1)]; $0.setDelivery(.sent, for: dm(1).id) }
                try await commit(store) { $0.setDelivery(.delivered, for: dm(1).id) }
                let levels = try await store.synchronousAtCommits()
                #expect(levels.count == 2 && Set(levels).count == 1, "one level throughout: \(levels)")
                #expect(try await store.pragma("synchronous") == before)
            }
            #expect(try await normalStore.synchronousAtCommits() == [Self.normal, Self.normal])
        }
    }

    @Test func whatCountsAsDeliveredMarksAlone() {
        let id = dm(1).id, other = dm(2).id
        var changes = StoreChanges()
        #expect(!changes.holdsOnlyDeliveredMarks, "an empty commit writes nothing")
        changes.setDelivery(.delivered, for: id)
        changes.setDelivery(.delivered, for: other)
        #expect(changes.holdsOnlyDeliveredMarks)
        for state in [DeliveryState.queued, .sent, .failed, .held, .discarded] {
            var mixed = changes
            mixed.deliveries[dm(3).id] = state
            #expect(!mixed.holdsOnlyDeliveredMarks, "with a \(state) mark")
        }
        var withMessage = changes
        withMessage.messages = [dm(3)]
        var withConversation = changes
        withConversation.conversations[Fixtures.bob] = ConversationRow(nickname: "bob", state: .accepted)
        var withMarker = changes
        withMarker.readMarkers[.direct(Fixtures.bob)] = HistoryCursor(dm(1))
        var withSetting = changes
        withSetting.settings["k"] = "v"
        var withUnpooled = changes
        withUnpooled.unpooled = [Fixtures.carol]
        for mixed in [withMessage, withConversation, withMarker, withSetting, withUnpooled] {
            #expect(!mixed.holdsOnlyDeliveredMarks)
        }
    }
}

extension ChatStore {
    /// Runs raw SQL on the store's connection (a test's trigger).
    fileprivate func run(_ sql: String) throws(StoreError) {
        try db().execute(sql)
    }
}
