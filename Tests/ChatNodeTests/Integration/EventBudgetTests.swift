import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// The node's event stream to a front end that does not read is bounded
/// by the events' size, not only their number: under a flood of long
/// messages the oldest events go (counted), the newest are kept, and every
/// message is still stored.
@Suite(.realTime) struct EventBudgetTests {
    @Test func aFrontEndThatDoesNotReadHoldsAtMostTheByteBudget() async throws {
        let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
        let flooder = NodeNumber(rawValue: 2)!
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: me.number)
        let transport = ScriptedTransport()
        let node = ChatNode(identity: me, transport: transport, store: store)
        try await node.start()
        transport.feed.yield(.peerJoined(PeerInfo(number: flooder, nickname: "flood", instanceId: "x", address: "127.0.0.1")))
        // About twice the budget in message events; far under the count cap.
        let text = String(repeating: "x", count: 200)
        let perEvent = NodeEvent.message(Message(id: MessageID(millis: 1, random: (0, 0)), room: .publicRoom, senderNumber: flooder,
                                                 senderNickname: "flood", content: text, timestamp: 1)).approximateBytes
        let total = 2 * NodeLimits.eventBufferBytes / perEvent
        #expect(total < NodeLimits.eventBuffer, "the byte budget, not the count, is what binds here")
        for index in 0..<total {
            transport.feed.yield(.received(P2PPayload(
                type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (2, UInt64(index))),
                senderNumber: flooder, senderNickname: "flood", content: text + "\(index)", timestamp: 1_732_147_200_000), from: flooder))
        }
        // The node's own count, not the store's: the commit reaches the disk
        // (and `lastSeq`) before the node resumes to count it, and under load
        // that gap is long enough to read a count one batch short.
        try #require(await waitUntil("all stored", within: .seconds(30)) { await node.statistics().stored == total })
        #expect(try await store.lastSeq() == Int64(total))
        // Arrival numbers count every stored message; the first one's event is dropped below.
        let first = try await store.publicMessages(afterSeq: 0, limit: 1).first?.message.content
        #expect(first == text + "0", "every message stays in the history")
        await node.stop()
        // What waited for the front end: within the budget, newest last.
        var weight = 0
        var messages: [String] = []
        for await event in node.events {
            weight += event.approximateBytes
            if case .message(let message) = event { messages.append(message.content) }
        }
        #expect(weight <= NodeLimits.eventBufferBytes)
        #expect(messages.count > total / 3, "a budget's worth is kept")
        #expect(messages.last == text + "\(total - 1)", "the oldest are dropped, not the newest")
        let dropped = await node.statistics().eventsDropped
        #expect(dropped >= total - messages.count, "every dropped message event is counted")
    }

    @Test func aMessageEventWeighsItsText() {
        let short = Message(id: MessageID(millis: 1, random: (0, 0)), room: .publicRoom, senderNumber: NodeNumber(rawValue: 2)!,
                            senderNickname: "bob", content: "hi", timestamp: 1)
        var long = short
        long.content = String(repeating: "é", count: 240)
        #expect(NodeEvent.message(long).approximateBytes - NodeEvent.message(short).approximateBytes == 480 - 2)
        #expect(NodeEvent.unread(.publicRoom, count: 3).approximateBytes < NodeEvent.message(short).approximateBytes)
    }
}
