@testable import ChatCore
@testable import ChatWire
import Foundation
import Testing
import TestSupport

/// The hand-written frame encoder must write the JSON object JSONEncoder
/// writes, for every field combination and every kind of text.
@Suite struct FrameEncoderTests {
    static let texts = ["", "hi", "한국어 👋🏽 family 👨‍👩‍👧", "quote \" back \\ slash / end", "tab\tnew\nline\r", "\u{8}\u{C}\u{0}\u{1}\u{1F}\u{7F}",
                        "e\u{301}", "\u{202E}rtl", "\u{2028}\u{2029}", String(repeating: "x", count: 300), "\u{FFFF}\u{10FFFF}"]

    static func payload(using random: inout SeededRandom) -> P2PPayload {
        func id(_ random: inout SeededRandom) -> MessageID {
            MessageID(millis: Int64.random(in: 0...281_474_976_710_655, using: &random),
                      random: (UInt64.random(in: 0...UInt64.max, using: &random), UInt64.random(in: 0...UInt64.max, using: &random)))
        }
        let types: [PayloadType] = [.publicMessage, .directMessage, .dmRequest, .dmAccept, .ack, .ping, .pong, .hello, .historyRequest, .leave,
                                    .unknown("futureType/x")]
        var payload = P2PPayload(
            type: types.randomElement(using: &random)!, messageId: id(&random),
            senderNumber: NodeNumber(rawValue: random.chance(0.5) ? 1 : UInt64.random(in: 1...9_007_199_254_740_991, using: &random))!,
            senderNickname: texts.randomElement(using: &random)!, content: texts.randomElement(using: &random)!,
            timestamp: random.chance(0.2) ? Int64.random(in: Int64.min...Int64.max, using: &random) : 1_732_147_200_000,
            version: random.chance(0.8) ? 2 : Int.random(in: Int.min...Int.max, using: &random))
        if random.chance(0.5) { payload.senderStage = texts.randomElement(using: &random)! }
        if random.chance(0.5) { payload.targetNumber = NodeNumber(rawValue: UInt64.random(in: 1...9_007_199_254_740_991, using: &random)) }
        if random.chance(0.5) { payload.refId = id(&random) }
        if random.chance(0.5) { payload.automatic = random.chance(0.5) }
        if random.chance(0.3) { payload.instanceId = texts.randomElement(using: &random)! }
        if random.chance(0.3) { payload.listenPort = Int.random(in: -5...70_000, using: &random) }
        if random.chance(0.3) { payload.capabilities = Array(texts.prefix(Int.random(in: 0...3, using: &random))) }
        if random.chance(0.3) { payload.sinceTimestamp = Int64.random(in: -1...Int64.max, using: &random) }
        if random.chance(0.3) { payload.sinceId = id(&random) }
        if random.chance(0.3) { payload.limit = Int.random(in: -1...1000, using: &random) }
        if random.chance(0.3) { payload.more = random.chance(0.5) }
        if random.chance(0.5) { payload.signature = "ab+/cd==" + texts.randomElement(using: &random)! }
        if random.chance(0.5) { payload.authorKey = "k/+=" }
        return payload
    }

    /// The same JSON object as JSONEncoder's (whose key order is not
    /// fixed, so objects are compared, not bytes), and it decodes back.
    @Test(arguments: [UInt64(1), 2, 3])
    func writesTheObjectJSONEncoderWrites(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<400 {
            let payload = Self.payload(using: &random)
            let fast = Data(try #require(P2PFrameEncoder.encode(payload)))
            let reference = try JSONEncoder().encode(payload)
            let fastObject = try #require(try JSONSerialization.jsonObject(with: fast) as? NSDictionary)
            let referenceObject = try #require(try JSONSerialization.jsonObject(with: reference) as? NSDictionary)
            #expect(fastObject == referenceObject, "\(String(decoding: fast, as: UTF8.self))")
            #expect(try JSONDecoder().decode(P2PPayload.self, from: fast) == payload)
        }
    }

    /// Valid frames read back through the link's own decoder (fast path included).
    @Test func linesReadBackThroughTheFrameCodec() throws {
        var random = SeededRandom(seed: 5)
        var ids = MessageIDGenerator()
        for index in 0..<200 {
            var payload = P2PPayload(
                type: [.publicMessage, .directMessage, .ack, .ping].randomElement(using: &random)!,
                messageId: ids.next(millis: 1_732_147_200_000 + Int64(index)), senderNumber: NodeNumber(rawValue: 4711)!,
                senderNickname: "alice", senderStage: random.chance(0.5) ? "ios" : nil,
                content: Self.texts.randomElement(using: &random)!, timestamp: 1_732_147_200_000 + Int64(index))
            if payload.type.isDirect { payload.targetNumber = NodeNumber(rawValue: 42) }
            if payload.type == .ack { payload.refId = ids.next(millis: 1_732_147_200_000) }
            if payload.type == .publicMessage { payload.signature = "c2ln/+=="; payload.authorKey = "a2V5" }
            let line = P2PFrameCodec.encode(payload)
            #expect(line.last == 0x0A)
            #expect(try P2PFrameCodec.decode(Array(line.dropLast())) == payload)
        }
    }

    @Test func nestedFramesGoThroughJSONEncoder() throws {
        var random = SeededRandom(seed: 9)
        var reply = Self.payload(using: &random)
        reply.messages = [Self.payload(using: &random)]
        #expect(P2PFrameEncoder.encode(reply) == nil)
        // The codec still writes it, and it reads back.
        let line = P2PFrameCodec.encode(reply)
        #expect(line.last == 0x0A)
        #expect(try JSONDecoder().decode(P2PPayload.self, from: line.dropLast()) == reply)
    }

    @Test func codecLinesReadBack() throws {
        var random = SeededRandom(seed: 4)
        for _ in 0..<100 {
            let payload = Self.payload(using: &random)
            let line = P2PFrameCodec.encode(payload)
            #expect(line.last == 0x0A)
            #expect(try JSONDecoder().decode(P2PPayload.self, from: line.dropLast()) == payload)
        }
    }
}
