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
}
