import ChatCore
import ChatWire
import Foundation
@testable import P2PTransport
import Testing

/// The hand-written control frames read back as what `JSONEncoder` writes
/// for the same payload, with names that need escaping; anything that is
/// not a control frame goes through the codec.
@Suite struct ControlFrameTests {
    static let id = MessageID(millis: 1_732_147_200_000, random: (1, 2))
    static let names = ["alice", "bob \"the\" builder", #"back\slash"#, "안녕 😀", "slash/and: colon"]

    private func payload(_ type: PayloadType, nickname: String, stage: String? = nil) -> P2PPayload {
        P2PPayload(type: type, messageId: Self.id, senderNumber: NodeNumber(rawValue: 4_393_289_295_727_693)!,
                   senderNickname: nickname, senderStage: stage, timestamp: 1_732_147_200_123,
                   refId: type == .pong ? MessageID(millis: 1_732_147_200_001, random: (3, 4)) : nil)
    }

    @Test(arguments: [PayloadType.hello, .ping, .pong, .leave])
    func readsBackAsTheCodecsFrame(type: PayloadType) throws {
        for nickname in Self.names {
            for stage in [nil, "ios", "스테이지 \"x\""] as [String?] {
                var original = payload(type, nickname: nickname, stage: stage)
                if type == .hello {
                    original.instanceId = "6f1c1e9e-5d3a-4c51-9a0e-2b7f1d0c9a11"
                    original.listenPort = 40_123
                    original.capabilities = ["ack", "history"]
                }
                let fast = ControlFrame.encode(original)
                #expect(fast.last == 0x0A)
                #expect(!fast.dropLast().contains(0x0A), "one line")
                let decoded = try JSONDecoder().decode(P2PPayload.self, from: fast)
                let reference = try JSONDecoder().decode(P2PPayload.self, from: P2PFrameCodec.encode(original))
                #expect(decoded == reference)
                #expect(decoded == original)
                #expect(try P2PFrameCodec.decode(Array(fast.dropLast())) == original)
            }
        }
    }

    @Test func otherFramesGoThroughTheCodec() throws {
        var message = payload(.publicMessage, nickname: "alice")
        message.content = "hi"
        #expect(!ControlFrame.isControl(message))
        // JSONEncoder's key order varies between calls: compare what reads back.
        #expect(try P2PFrameCodec.decode(Array(ControlFrame.encode(message).dropLast())) == message)
        #expect(String(decoding: ControlFrame.encode(message), as: UTF8.self).contains(#""content":"hi""#))
        var ping = payload(.ping, nickname: "alice")
        ping.targetNumber = NodeNumber(rawValue: 7)
        #expect(!ControlFrame.isControl(ping))
        #expect(try JSONDecoder().decode(P2PPayload.self, from: ControlFrame.encode(ping)).targetNumber == NodeNumber(rawValue: 7))
        #expect(ControlFrame.isControl(payload(.ping, nickname: "alice")))
    }

    @Test func controlCharactersAreEscaped() throws {
        var ping = payload(.ping, nickname: "alice")
        ping.content = "a\u{1}b\nc"
        let fast = ControlFrame.encode(ping)
        #expect(String(decoding: fast, as: UTF8.self).contains(#"a\u0001b\u000ac"#))
        #expect(try JSONDecoder().decode(P2PPayload.self, from: fast).content == "a\u{1}b\nc")
    }
}
