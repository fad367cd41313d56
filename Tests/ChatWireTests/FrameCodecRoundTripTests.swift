import ChatCore
import ChatWire
import Foundation
import Testing
import TestSupport

/// Every payload type, with the optional fields it uses, through
/// `encode` → `decode`; on a link's stream of records, fed whole, byte by
/// byte and in random chunks, in `FrameStreamTests`.
@Suite struct FrameCodecRoundTripTests {
    typealias F = Fixtures

    static func base(_ type: PayloadType, sequence: UInt64, from sender: NodeIdentity = F.bob) -> P2PPayload {
        F.frame(type, from: sender, id: F.id(sequence), at: F.t0 + Int64(sequence))
    }

    /// One frame of every type, each with the optional fields it carries.
    static let samples: [P2PPayload] = {
        var hello = base(.hello, sequence: 1, from: F.carol)
        hello.instanceId = "3f1c9a2e-start-7"
        hello.listenPort = 47_001
        hello.capabilities = ["ack", "history"]

        var publicMessage = base(.publicMessage, sequence: 2)
        publicMessage.content = "안녕하세요 \u{1F44B}\u{1F3FD} \"quoted\" back\\slash\nline two\u{2028}\u{0}tab\t/"
        publicMessage.automatic = true

        var directMessage = base(.directMessage, sequence: 3)
        directMessage.targetNumber = F.alice.number
        directMessage.content = "just us \u{1F1F0}\u{1F1F7}"
        directMessage.automatic = false

        var dmRequest = base(.dmRequest, sequence: 4)
        dmRequest.targetNumber = F.alice.number
        dmRequest.content = "can we talk?"

        var dmAccept = base(.dmAccept, sequence: 5)
        dmAccept.targetNumber = F.alice.number
        dmAccept.refId = F.id(4)

        var dmDecline = base(.dmDecline, sequence: 6)
        dmDecline.targetNumber = F.alice.number
        dmDecline.refId = F.id(4)

        var ack = base(.ack, sequence: 7)
        ack.targetNumber = F.alice.number
        ack.refId = F.id(3)

        let leave = base(.leave, sequence: 8)

        var historyRequest = base(.historyRequest, sequence: 9)
        historyRequest.sinceTimestamp = F.t0 - 86_400_000
        historyRequest.sinceId = F.id(0, millis: F.t0 - 86_400_000)
        historyRequest.limit = 30

        var historyReply = base(.historyReply, sequence: 10)
        historyReply.refId = F.id(9)
        historyReply.messages = [publicMessage, base(.publicMessage, sequence: 11, from: F.carol)]
        historyReply.messages?[1].content = "older"
        historyReply.more = true

        var emptyHistoryReply = base(.historyReply, sequence: 12)
        emptyHistoryReply.messages = []
        emptyHistoryReply.more = false

        let ping = base(.ping, sequence: 13)
        var pong = base(.pong, sequence: 14)
        pong.refId = F.id(13)

        var fileOffer = base(.fileOffer, sequence: 19)
        fileOffer.targetNumber = F.alice.number
        fileOffer.content = #"{"name":"a.txt","port":4000,"sha256":"00","size":1}"#
        var fileAccept = base(.fileAccept, sequence: 20)
        fileAccept.targetNumber = F.alice.number
        fileAccept.refId = F.id(19)
        var fileDecline = base(.fileDecline, sequence: 21)
        fileDecline.targetNumber = F.alice.number
        fileDecline.refId = F.id(19)
        var fileCancel = base(.fileCancel, sequence: 22)
        fileCancel.targetNumber = F.alice.number
        fileCancel.refId = F.id(19)
        var fileDone = base(.fileDone, sequence: 23)
        fileDone.targetNumber = F.alice.number
        fileDone.refId = F.id(19)
        fileDone.content = String(repeating: "ab", count: 32)

        var future = base(.unknown("futureType"), sequence: 15)
        future.content = "from a newer build"

        var noStage = base(.publicMessage, sequence: 16)
        noStage.senderStage = nil
        noStage.content = "x"
        var extremes = base(.publicMessage, sequence: 17, from: NodeIdentity(number: F.node((1 << 53) - 1), nickname: "max"))
        extremes.timestamp = Timestamp.latestAccepted
        extremes.content = "late"
        var earliest = base(.ping, sequence: 18)
        earliest.timestamp = Timestamp.earliestAccepted
        earliest.version = 2  // a newer peer; fields this build knows still decode

        return [hello, publicMessage, directMessage, dmRequest, dmAccept, dmDecline, ack, leave,
                historyRequest, historyReply, emptyHistoryReply, ping, pong, future, noStage, extremes, earliest,
                fileOffer, fileAccept, fileDecline, fileCancel, fileDone]
    }()

    @Test func samplesCoverEveryType() {
        let types = Set(Self.samples.map(\.type))
        #expect(types.isSuperset(of: PayloadType.known))
        #expect(types.contains(.unknown("futureType")))
    }

    @Test(arguments: samples)
    func roundTripOneFrame(payload: P2PPayload) throws {
        let encoded = P2PFrameCodec.encode(payload)
        #expect(encoded.last == 0x0A)
        #expect(encoded.dropLast().contains(0x0A) == false, "one JSON object, then the \"\\n\" the link drops")
        #expect(try P2PFrameCodec.decode(encoded.dropLast()) == payload)
    }

    @Test func wireFieldNamesAreTheSeeds() throws {
        let line = P2PFrameCodec.encode(Self.samples[2])  // directMessage
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(Set(object.keys) == ["version", "type", "messageId", "senderNumber", "senderNickname", "content",
                                     "timestamp", "targetNumber", "automatic"])
        #expect(object["type"] as? String == "directMessage")
        #expect(object["senderNumber"] as? Int == 2)
        #expect(object["targetNumber"] as? Int == 1)
        #expect(object["timestamp"] as? Int == Int(F.t0) + 3)
        #expect(object["messageId"] as? String == F.id(3).description)
    }

    @Test func absentOptionalsAreNotEncoded() throws {
        let line = P2PFrameCodec.encode(Self.base(.ping, sequence: 1))
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(Set(object.keys) == ["version", "type", "messageId", "senderNumber", "senderNickname", "content", "timestamp"])
    }

    @Test func unknownExtraFieldsAreIgnored() throws {
        let line = #"{"version":2,"type":"ping","messageId":"\#(F.id(1))","senderNumber":2,"senderNickname":"bob","#
            + #""content":"","timestamp":\#(F.t0),"futureField":{"nested":[1,2,3]},"emoji":"\u00e9"}"#
        let payload = try P2PFrameCodec.decode(Array(line.utf8))
        #expect(payload == F.frame(.ping, from: F.bob, id: F.id(1)))
    }

    @Test func nullOptionalFieldsReadAsAbsent() throws {
        let line = #"{"version":2,"type":"ping","messageId":"\#(F.id(1))","senderNumber":2,"senderNickname":"bob","#
            + #""senderStage":null,"targetNumber":null,"refId":null,"content":"","timestamp":\#(F.t0)}"#
        #expect(try P2PFrameCodec.decode(Array(line.utf8)) == F.frame(.ping, from: F.bob, id: F.id(1)))
    }
}
