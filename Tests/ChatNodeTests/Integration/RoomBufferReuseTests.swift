import ChatCore
@testable import ChatNode
import ChatStore
import Testing
import TestSupport

/// A step plans on a copy of the router and the node adopts that copy
/// after the commit. If anything else still held the copy when the room
/// settled its new messages, the room's 100 messages were copied on every
/// step (once most of a node's CPU per message). The public room's buffer
/// must stay put from step to step.
@Suite(.realTime) struct RoomBufferReuseTests {
    static let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
    static let alice = NodeNumber(rawValue: 2)!

    @Test func stepsDoNotCopyTheRoom() async throws {
        let transport = ScriptedTransport()
        let node = ChatNode(identity: Self.me, transport: transport, store: try ChatStore(path: nil, localNumber: Self.me.number))
        let log = EventLog(node.events)
        try await node.start()
        transport.feed.yield(.peerJoined(PeerInfo(number: Self.alice, nickname: "alice", instanceId: "x", address: "127.0.0.1")))
        var identities: [Int] = []
        for index in 0..<400 {
            let text = "m\(index)"
            transport.feed.yield(.received(P2PPayload(
                type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000 + Int64(index), random: (3, UInt64(index))),
                senderNumber: Self.alice, senderNickname: "alice", content: text,
                timestamp: 1_732_147_200_000 + Int64(index)), from: Self.alice))
            // One message a step: the next is fed once this one is shown.
            try await log.until(text) { $0.contains { if case .message(let m) = $0 { m.content == text } else { false } } }
            if index >= 300 { identities.append(await node.publicRoomStorageIdentity) }
        }
        // The room is full (100) and its buffer has grown to its working
        // size by now: it may move once more, not on every step.
        let moves = zip(identities, identities.dropFirst()).count { $0 != $1 }
        #expect(moves <= 2, "the room's buffer moved in \(moves) of \(identities.count - 1) steps")
        await node.stop()
    }
}
