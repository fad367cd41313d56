import ChatCore
import ChatStore
import Foundation
import Testing

@Suite struct ChatStoreDeliveryTests {
    let me = NodeNumber(rawValue: 1)!
    let bob = NodeNumber(rawValue: 2)!

    func dm(_ n: Int64) -> Message {
        Message(id: MessageID(millis: 1_732_147_200_000 + n, random: (UInt64(n), 7)), room: .direct(bob), senderNumber: me,
                senderNickname: "me", content: "m\(n)", timestamp: 1_732_147_200_000 + n)
    }

    @Test func undeliveredSurvivesReopenUntilDelivered() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-delivery-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path

        let store = try ChatStore(path: path, localNumber: me)
        for n: Int64 in 1...3 { try await store.insert(dm(n)) }
        try await store.setDelivery(.queued, for: dm(1).id)
        try await store.setDelivery(.sent, for: dm(2).id)
        try await store.setDelivery(.delivered, for: dm(3).id)
        #expect(try await store.undelivered().map(\.content) == ["m1", "m2"])
        await store.close()

        let reopened = try ChatStore(path: path, localNumber: me)
        #expect(try await reopened.undelivered().map(\.content) == ["m1", "m2"])
        #expect(try await reopened.delivery(of: dm(2).id) == .sent)
        try await reopened.setDelivery(.delivered, for: dm(1).id)
        try await reopened.setDelivery(.failed, for: dm(2).id)
        #expect(try await reopened.undelivered().isEmpty)
        #expect(try await reopened.delivery(of: MessageID(millis: 1, random: (0, 0))) == nil)
    }

    @Test func aHeldDMIsKeptFoundAtStartAndOnlyReleasedOrDiscarded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-held-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path

        let store = try ChatStore(path: path, localNumber: me)
        for n: Int64 in 1...4 { try await store.insert(dm(n)) }
        for n: Int64 in 1...3 { try await store.setDelivery(.held, for: dm(n).id) }
        try await store.setDelivery(.queued, for: dm(4).id)
        try await store.setDelivery(.held, for: dm(4).id)  // an outgoing DM is never held afterwards
        try await store.setDelivery(.discarded, for: dm(4).id)  // nor discarded
        #expect(try await store.delivery(of: dm(4).id) == .queued)
        #expect(try await store.held().map(\.content) == ["m1", "m2", "m3"])
        #expect(try await store.undelivered().map(\.content) == ["m4"], "held is not in the outbox")
        await store.close()

        let reopened = try ChatStore(path: path, localNumber: me)
        #expect(try await reopened.held().map(\.content) == ["m1", "m2", "m3"])
        try await reopened.setDelivery(.queued, for: dm(1).id)   // released, linked later
        try await reopened.setDelivery(.sent, for: dm(2).id)     // released to a linked peer
        try await reopened.setDelivery(.discarded, for: dm(3).id)
        try await reopened.setDelivery(.queued, for: dm(3).id)   // discarded is final
        #expect(try await reopened.held().isEmpty)
        #expect(try await reopened.delivery(of: dm(3).id) == .discarded)
        #expect(try await reopened.undelivered().map(\.content) == ["m1", "m2", "m4"])
        #expect(DeliveryState.held.canMove(to: .queued) && !DeliveryState.queued.canMove(to: .held))
        #expect(!DeliveryState.discarded.canMove(to: .queued) && !DeliveryState.sent.canMove(to: .discarded))
    }
}
