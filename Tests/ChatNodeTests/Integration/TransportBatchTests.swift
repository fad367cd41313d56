import ChatCore
@testable import ChatNode
import ChatStore
import Testing
import TestSupport

/// A batch of frames from the transport (`.receivedFrames`) is the same to
/// the node as one `.received` each: every frame is stored, in order, and a
/// peer change after the batch is handled after its frames.
@Suite(.realTime) struct TransportBatchTests {
    static let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
    static let alice = NodeNumber(rawValue: 2)!

    static func frame(_ index: Int) -> P2PPayload {
        P2PPayload(type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (2, UInt64(index))),
                   senderNumber: alice, senderNickname: "alice", content: "m\(index)", timestamp: 1_732_147_200_000)
    }

    @Test func theInboxSplitsABatchIntoFramesThatRunsCanCutAnywhere() {
        var inbox = TransportInbox()
        inbox.append(.receivedFrames((0..<3).map(Self.frame), from: Self.alice))
        inbox.append(.peerLeft(Self.alice, .left))
        inbox.append(.received(Self.frame(3), from: Self.alice))
        #expect(inbox.count == 5)
        #expect(inbox.takeReceived(limit: 2).map(\.payload.content) == ["m0", "m1"])
        #expect(inbox.takeSingle() == nil, "a frame is next, not a peer change")
        #expect(inbox.takeReceived(limit: 10).map(\.payload.content) == ["m2"], "a run ends at the peer change")
        guard case .left(let number, _)? = inbox.takeSingle() else {
            Issue.record("the peer change follows the batch")
            return
        }
        #expect(number == Self.alice)
        #expect(inbox.takeReceived(limit: 10).map(\.payload.content) == ["m3"])
        #expect(inbox.isEmpty)
    }

    @Test func aBatchIsStoredInOrderAndThePeerLeavesAfterIt() async throws {
        let transport = ScriptedTransport()
        let store = try ChatStore(path: nil, localNumber: Self.me.number)
        let node = ChatNode(identity: Self.me, transport: transport, store: store)
        let log = EventLog(node.events)
        try await node.start()
        transport.feed.yield(.peerJoined(PeerInfo(number: Self.alice, nickname: "alice", instanceId: "x", address: "127.0.0.1")))
        transport.feed.yield(.receivedFrames((0..<50).map(Self.frame), from: Self.alice))
        transport.feed.yield(.peerLeft(Self.alice, .left))
        try await log.until("the peer left") { events in  // the standard deadline: 10 s ran out under a parallel CI run
            events.contains { if case .peerLeft = $0 { true } else { false } }
        }
        let seen = log.events.compactMap { event -> String? in
            switch event {
            case .message(let message): message.content
            case .peerLeft: "left"
            default: nil
            }
        }
        #expect(seen == (0..<50).map { "m\($0)" } + ["left"])
        #expect(try await store.page(.publicRoom, before: nil, limit: 100).map(\.content) == (0..<50).map { "m\($0)" })
        await node.stop()
    }
}
