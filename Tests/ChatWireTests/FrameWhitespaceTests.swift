import ChatCore
import ChatWire
import Testing

/// PROTOCOL.md 4.1: a frame is one JSON text. Senders put nothing around
/// the object; a receiver reads JSON whitespace around it (a line end an
/// older or careless sender leaves) as JSON allows, and nothing else.
@Suite struct FrameWhitespaceTests {
    static let frame = #"{"version":2,"type":"ping","messageId":"01934c04-c009-7b00-9b00-000000000008","senderNumber":4393289295727693,"senderNickname":"alice","content":"","timestamp":1732147200009}"#

    @Test func aTrailingLineEndIsReadAsJSONWhitespace() throws {
        #expect(try P2PFrameCodec.decode(Array((Self.frame + "\n").utf8)).type == .ping)
        #expect(try P2PFrameCodec.decode(Array(Self.frame.utf8)).type == .ping)
    }

    @Test func anEmptyPlaintextOrTwoObjectsAreMalformed() {
        #expect(throws: FrameError.self) { try P2PFrameCodec.decode([UInt8]()) }
        #expect(throws: FrameError.self) { try P2PFrameCodec.decode(Array((Self.frame + Self.frame).utf8)) }
    }

    @Test func theEncoderEndsFramesWithALineEndThatTheLinkStrips() {
        // `P2PFrameCodec.encode` ends in "\n" for the one frame sent bare
        // (the refusal a v1 node reads as a line); `P2PService.sealPending`
        // drops it before sealing, so no record on a link ends in one.
        let encoded = [UInt8](P2PFrameCodec.encode(try! P2PFrameCodec.decode(Array(Self.frame.utf8))))
        #expect(encoded.last == 0x0A && !encoded.dropLast().contains(0x0A))
    }
}
