import ChatCore
@testable import ChatOverlay
import ChatWire
import Foundation
import Testing

/// The hand-written overlay encoder against its reference, JSONEncoder
/// (`encodeWithJSONEncoder`): the same object for every kind of frame and
/// for text that needs escapes; and `decodeIfOverlay`, the transport's way
/// past the generic decoder, answers exactly for well-formed overlay
/// frames and steps aside for everything else.
@Suite struct OverlayFrameEncoderTests {
    typealias Vectors = OverlayFrameCodecTests

    static var awkward: [OverlayFrame] {
        ["a/b \"q\" \\ back", "tab\tnew\nline \u{01} \u{1F}", "ünï 😀 日本 /\u{7F}", String(repeating: "x", count: 240)].map { text in
            var message = Vectors.message
            message.content = text
            message.senderStage = nil
            return .gossip(GossipMessage(hops: 255, message: message))
        }
    }

    /// The same JSON object as JSONEncoder's (whose key order is its own
    /// hash order, so the bytes are compared as parsed objects), and
    /// decoded back to the frame.
    @Test(arguments: Vectors.every + awkward) func theObjectIsJSONEncoders(_ frame: OverlayFrame) throws {
        var slashed = Vectors.header
        slashed.senderNickname = "b/o\"b"
        for header in [Vectors.header, slashed] {
            let fast = OverlayFrameCodec.encode(frame, header: header)
            let reference = OverlayFrameCodec.encodeWithJSONEncoder(frame, header: header)
            let parsed = try #require(JSONSerialization.jsonObject(with: Data(fast)) as? NSDictionary)
            let expected = try #require(JSONSerialization.jsonObject(with: Data(reference)) as? NSDictionary)
            #expect(parsed == expected)
            let (decodedHeader, decoded) = try OverlayFrameCodec.decode(fast)
            #expect(decodedHeader == header)
            #expect(decoded == frame)
            #expect(!fast.contains(0x0A), "one line")
        }
    }

    @Test(arguments: Vectors.every + awkward) func decodeIfOverlayAnswersAsDecode(_ frame: OverlayFrame) throws {
        let bytes = OverlayFrameCodec.encode(frame, header: Vectors.header)
        let fast = try #require(OverlayFrameCodec.decodeIfOverlay(bytes))
        let (header, decoded) = try OverlayFrameCodec.decode(bytes)
        #expect(fast.header == header)
        #expect(fast.frame == decoded)
        #expect(fast.type == (try P2PFrameCodec.decode(bytes)).type.name)
    }

    /// The pre-check every frame on a link takes: the type key as the
    /// encoders write it, anywhere; escaped inside a text it is not there.
    @Test func thePreCheckLooksForTheTypeKey() {
        #expect(OverlayFrameCodec.mayBeOverlay(OverlayFrameCodec.encode(.prune, header: Vectors.header)))
        #expect(!OverlayFrameCodec.mayBeOverlay(Array(#"{"type" : "overlayPrune"}"#.utf8)))
        #expect(!OverlayFrameCodec.mayBeOverlay(Array(#"{"type":"publicMessage","content":"\"type\":\"overlay\""}"#.utf8)))
        #expect(!OverlayFrameCodec.mayBeOverlay(Array(#""type":"overla"#.utf8)), "shorter than the key")
        #expect(!OverlayFrameCodec.mayBeOverlay([]))
        #expect(OverlayFrameCodec.mayBeOverlay(Array(#""type":"overlay"#.utf8)), "the key alone, at the very end")
    }

    @Test func decodeIfOverlayStepsAsideForEverythingElse() {
        let ping = P2PPayload(type: .ping, messageId: Vectors.id, senderNumber: Vectors.bob, senderNickname: "bob", timestamp: 1_732_147_200_000)
        #expect(OverlayFrameCodec.decodeIfOverlay(Array(P2PFrameCodec.encode(ping).dropLast())) == nil, "not an overlay type")
        let common = #""version":2,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"b","content":"","timestamp":1732147200101"#
        let refused = [
            #"{"type":"overlayIHave","ids":[],\#(common)}"#,  // no ids
            #"{"type":"overlayIHave","ids":["01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f"],"ids":["01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f"],\#(common)}"#,
            #"{"type":"overlayBogus",\#(common)}"#,
            #"{"type":"overlayPrune",\#(common),"future":1}"#,  // a key the parser does not know: the generic path decides
        ]
        for text in refused { #expect(OverlayFrameCodec.decodeIfOverlay(Array(text.utf8)) == nil, "\(text)") }
        // White space around the type: the generic path's (which decodes it), not this one's.
        let spaced = Array(#"{"type" : "overlayJoin",\#(common)}"#.utf8)
        #expect(OverlayFrameCodec.decodeIfOverlay(spaced) == nil)
        #expect((try? OverlayFrameCodec.decode(spaced)) != nil)
        var chat = ping
        chat.type = .publicMessage
        chat.content = #"say "type":"overlayJoin" to me"#
        #expect(OverlayFrameCodec.decodeIfOverlay(Array(P2PFrameCodec.encode(chat).dropLast())) == nil, "the key inside a text")
    }
}
