import ChatCore
import ChatStore
import Foundation
import Testing
import TestSupport

/// `commit`: all or nothing, delivery forward only, byte-exact text, and the
/// arrival sequence catch-up asks by.
@Suite struct ChatStoreCommitTests {
    @Test func aCommitWritesMessagesStatesAndSettingsTogether() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me)
            let dm = Fixtures.message(at: Fixtures.base, idBits: 1, room: .direct(Fixtures.bob), from: Fixtures.me)
            var changes = StoreChanges()
            changes.messages = [dm]
            changes.setDelivery(.queued, for: dm.id)
            changes.conversations[Fixtures.bob] = ConversationRow(nickname: "bob", state: .outgoingRequest)
            changes.settings["catchup.2"] = "e:5"
            let result = try await store.commit(changes)
            #expect(result.added == [dm.id])
            #expect(try await store.delivery(of: dm.id) == .queued)
            #expect(try await store.conversations().first?.state == .outgoingRequest)
            #expect(try await store.value(forKey: "catchup.2") == "e:5")

            // A closed store commits nothing (rollback itself: ChatStoreBasicsTests).
            var broken = StoreChanges()
            broken.messages = [Fixtures.message(at: Fixtures.base + 1, idBits: 2)]
            broken.setDelivery(.sent, for: dm.id)
            broken.settings["catchup.2"] = "e:9"
            broken.conversations[Fixtures.bob] = ConversationRow(nickname: String(repeating: "x", count: 10), state: .accepted)
            await store.close()
            await #expect(throws: StoreError.closed) { try await store.commit(broken) }
        }
    }

    @Test func deliveryOnlyMovesForward() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let dm = Fixtures.message(at: Fixtures.base, idBits: 1, room: .direct(Fixtures.bob), from: Fixtures.me)
        try await store.insert(dm)
        for (next, expected) in [(DeliveryState.queued, DeliveryState.queued), (.sent, .sent), (.queued, .sent),
                                 (.delivered, .delivered), (.sent, .delivered), (.failed, .delivered)] {
            try await store.setDelivery(next, for: dm.id)
            #expect(try await store.delivery(of: dm.id) == expected, "after \(next)")
        }
        var planned = StoreChanges()
        planned.setDelivery(.sent, for: dm.id)
        planned.setDelivery(.queued, for: dm.id)
        #expect(planned.deliveries[dm.id] == .sent)
    }

    @Test func textIsStoredByteExactNulIncluded() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let text = "before\u{0}after \u{1B}[31m 가"
        let message = Fixtures.message(at: Fixtures.base, idBits: 1, text: text)
        try await store.insert(message)
        #expect(try await store.message(message.id)?.content == text)
        let empty = Fixtures.message(at: Fixtures.base, idBits: 2, text: "")
        try await store.insert(empty)
        #expect(try await store.message(empty.id)?.content == "")
    }

    @Test func arrivalSequenceIgnoresTimestamps() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        // Arrival order differs from timestamp order (skewed clocks).
        let late = Fixtures.message(at: Fixtures.base + 3_600_000, idBits: 1)
        let early = Fixtures.message(at: Fixtures.base - 3_600_000, idBits: 2)
        let dm = Fixtures.message(at: Fixtures.base, idBits: 3, room: .direct(Fixtures.bob))
        try await store.insert(late)
        let mark = try await store.lastSeq()
        try await store.insert(contentsOf: [dm, early, late])
        let after = try await store.publicMessages(afterSeq: mark, limit: 10)
        #expect(after.map(\.message.id) == [early.id])  // the DM is not public; `late` was there before
        #expect(after.first!.seq > mark)
        #expect(try await store.publicMessages(afterSeq: 0, limit: 10).map(\.message.id) == [late.id, early.id])
        #expect(!store.epoch.isEmpty)
    }

    @Test func sequenceNumbersAndEpochSurviveReopen() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("h.sqlite").path
            let first = try ChatStore(path: path, localNumber: Fixtures.me)
            try await first.insert(contentsOf: Fixtures.numbered(5))
            let epoch = first.epoch
            await first.close()
            let again = try ChatStore(path: path, localNumber: Fixtures.me)
            #expect(again.epoch == epoch)
            #expect(try await again.lastSeq() == 5)
            #expect(try await again.publicMessages(afterSeq: 3, limit: 10).map(\.message.content) == ["m3", "m4"])
        }
    }
}

@Suite struct InMemoryWindowTests {
    @Test func anInMemoryStoreKeepsABoundedWindowPerRoom() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let total = ChatStore.inMemoryWindow + ChatStore.inMemoryWindow / 5
        let all = Fixtures.numbered(total)
        var next = 0
        while next < total {
            try await store.insert(contentsOf: Array(all[next..<min(next + 1000, total)]))
            next += 1000
        }
        var kept: [Message] = []
        var cursor: HistoryCursor?
        while true {
            let page = try await store.page(.publicRoom, after: cursor, limit: 1000)
            kept += page
            guard let last = page.last, page.count == 1000 else { break }
            cursor = HistoryCursor(last)
        }
        #expect(kept.count <= ChatStore.inMemoryWindow + ChatStore.inMemoryWindow / 10)
        #expect(kept.count >= ChatStore.inMemoryWindow)
        #expect(kept.last?.id == all.last?.id)  // the newest stay
    }
}

@Suite struct StoreQuotaTests {
    @Test func aCappedFileFailsLikeAFullDiskAndKeepsWhatItHas() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me,
                                      durability: .full, maxBytes: 256 * 1024)
            var stored = 0
            var failure: StoreError?
            for batch in 0..<200 {
                let messages = (0..<50).map { Fixtures.message(at: Fixtures.base + Int64(batch * 50 + $0), idBits: UInt64(batch * 50 + $0),
                                                               text: String(repeating: "x", count: 200)) }
                do { stored += try await store.insert(contentsOf: messages) } catch {
                    failure = error as? StoreError
                    break
                }
            }
            guard case .io(_, let code, _)? = failure else { Issue.record("no SQLITE_FULL: \(String(describing: failure))"); return }
            #expect(code & 0xFF == 13)
            #expect(stored > 0)
            #expect(try await store.page(.publicRoom, after: nil, limit: 1000).count == min(stored, 1000))
            #expect(try await store.integrityCheck())
        }
    }
}
