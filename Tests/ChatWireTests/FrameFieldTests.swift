import ChatCore
@testable import ChatWire
import Testing

/// Field rules the codec enforces on what a peer sends, beside the domain
/// rules they mirror (ChatCoreTests: `PublicMessageSignatureTests`,
/// `LookAlikeNameTests`).
@Suite struct FrameFieldTests {
    /// docs/PROTOCOL.md's "Signed public messages" example.
    static let example = P2PPayload(
        type: .publicMessage, messageId: MessageID("01934c04-c009-7a00-9b00-000000000008")!,
        senderNumber: NodeNumber(rawValue: 4711)!, senderNickname: "alice", senderStage: "ios",
        content: "hi 👋", timestamp: 1_732_147_200_000)

    /// The two wire fields come back through both decoders: the fast path
    /// (a lone frame) and JSONDecoder (inside a history reply).
    @Test func codecCarriesSignatureAndAuthorKey() throws {
        var signed = Self.example
        signed.signature = String(repeating: "A", count: 86) + "=="
        signed.authorKey = String(repeating: "B", count: 43) + "="
        let line = Array(P2PFrameCodec.encode(signed).dropLast())
        #expect(try P2PFrameCodec.decode(line) == signed)
        #expect(line.withUnsafeBufferPointer { FastPayloadParser.parse($0) } == .payload(signed))

        var reply = P2PPayload(
            type: .historyReply, messageId: MessageID("01934c04-c009-7a00-9b00-00000000000b")!,
            senderNumber: NodeNumber(rawValue: 9)!, senderNickname: "relay", timestamp: 1_732_147_200_001)
        reply.messages = [signed]
        let decoded = try P2PFrameCodec.decode(Array(P2PFrameCodec.encode(reply).dropLast()))
        #expect(decoded.messages?.first?.signature == signed.signature)
        #expect(decoded.messages?.first?.authorKey == signed.authorKey)
    }
}

/// The same rule on receive: a frame whose nickname hides a code point is
/// refused whole, as a frame with control characters in it is.
@Suite struct LookAlikeFrameTests {
    @Test(arguments: ["ali\u{200B}ce", "\u{3164}", "bob\u{202E}"])
    func framesWithInvisibleNamesAreRefused(nickname: String) throws {
        let payload = P2PPayload(
            type: .publicMessage, messageId: MessageID(millis: 1_800_000_000_000, random: (1, 2)), senderNumber: NodeNumber(rawValue: 7)!,
            senderNickname: nickname, senderStage: nil, content: "hi", timestamp: 1_800_000_000_000)
        let line = P2PFrameCodec.encode(payload)
        #expect(throws: FrameError.self) { try P2PFrameCodec.decode(Array(line.dropLast())) }
        var clean = payload
        clean.senderNickname = "alice"
        #expect(try P2PFrameCodec.decode(Array(P2PFrameCodec.encode(clean).dropLast())) == clean)
    }
}
