import ChatCore
import ChatOverlay
import ChatWire
import Foundation
import Testing

/// The overlay codec's byte parser against its reference, JSONDecoder
/// (`decodeWithJSONDecoder`): on the codec's vectors and a seeded corpus
/// of mutated frames, `decode` gives exactly the reference's answer (the
/// same frame, or the same error), and the parser itself answers for
/// every frame the encoder writes (it is the path taken, not a fallback).
@Suite struct OverlayFrameParserTests {
    typealias Vectors = OverlayFrameCodecTests
    typealias Outcome = Result<OverlayFrameCodec.Header, OverlayFrameError>

    /// Header and frame, or the error: compared whole (a frame is not Equatable with its header).
    static func outcome(_ decode: ([UInt8]) throws(OverlayFrameError) -> (OverlayFrameCodec.Header, OverlayFrame), _ bytes: [UInt8]) -> String {
        do {
            let (header, frame) = try decode(bytes)
            return "ok \(header) \(frame)"
        } catch {
            return "error \(error)"
        }
    }

    static var encoded: [[UInt8]] {
        Vectors.every.map { OverlayFrameCodec.encode($0, header: Vectors.header) }
    }

    static let common = #""version":2,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"b","content":"","timestamp":1732147200101"#

    /// Hand-made edge cases: nulls, white space, escapes, wrong types, unknown keys, numbers JSONDecoder reads its own way.
    static let handMade: [String] = [
        #"{"type":"overlayJoin",\#(common)}"#,
        #" { "type" : "overlayJoin" , \#(common) } "#,
        #"{"type":"overlayJoin",\#(common),"ttl":null,"message":null,"peers":null}"#,
        #"{"type":"overlayForwardJoin","newNode":5,"ttl":null,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":5,"ttl":2.0,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":5,"ttl":2e0,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":5,"ttl":02,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":5,"ttl":-1,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":0,"ttl":1,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":9007199254740992,"ttl":1,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":"5","ttl":1,\#(common)}"#,
        #"{"type":"overlayForwardJoin","newNode":5,"ttl":99999999999999999999,\#(common)}"#,
        #"{"type":"overlayNeighbor","priority":"h\u0069gh",\#(common)}"#,
        #"{"type":"overlayNeighbor","priority":"\ud800",\#(common)}"#,
        #"{"type":"overlayNeighborReply","accepted":1,\#(common)}"#,
        #"{"type":"overlayNeighborReply","accepted":true,\#(common),"future":{"a":[1,2]}}"#,
        #"{"type":"overlayShuffleReply","peers":[1, 2 ,3],\#(common)}"#,
        #"{"type":"overlayShuffleReply","peers":[1,"2"],\#(common)}"#,
        #"{"type":"overlayShuffleReply","peers":[],\#(common)}"#,
        #"{"type":"overlayShuffleReply","peers":[1,],\#(common)}"#,
        #"{"type":"overlayIHave","ids":["01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f"],\#(common)}"#,
        #"{"type":"overlayIHave","ids":["not an id"],\#(common)}"#,
        #"{"type":"overlayIHave","ids":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f",\#(common)}"#,
        #"{"type":"overlayGossip","hops":1,"message":{},\#(common)}"#,
        #"{"type":"overlayGossip","hops":1,"message":"{}",\#(common)}"#,
        #"{"type":"overlayGossip","hops":1,"message":{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":7,"senderNickname":"a}b","content":"x { y","timestamp":1732147200001},\#(common)}"#,
        #"{"type":"overlayGossip","hops":1,"message":{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":7,"senderNickname":"a","content":"x","timestamp":1732147200001,"messages":[]},\#(common)}"#,
        #"{"type":"overlayGossip","hops":1,"message":{"version":2,"type":"publicMessage"},\#(common)}"#,
        #"{"type":"overlayGossip","hops":1,"message":{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":7,"senderNickname":"a","content":"x","timestamp":1732147200001}"#,
        #"{"type":"overlayCard","relayId":"01934c04-c201-7b00-8c00-000000000002","ttl":1,"target":4,"card":"AAAA",\#(common)}"#,
        #"{"type":"overlaySealed","relayId":"01934c04-c201-7b00-8c00-000000000002","ttl":1,"envelope":"QUJD\/",\#(common)}"#,
        #"{"type":"overlayPrune",\#(common),"version":2}"#,
        #"{"type":"overlayPrune","version":0,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"b","content":"","timestamp":1}"#,
        #"{"type":"overlayPrune","version":2,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"b","content":null,"timestamp":1}"#,
        #"{"type":"overlayPrune","version":2,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"","content":"","timestamp":1}"#,
        #"{"type":"overlayPrune",\#(common)}x"#,
        #"{"type":"overlayPrune",\#(common)}}"#,
        "{\"type\":\"overlayPrune\",\(common)}\n",
        "",
        "[]",
        "null",
    ]

    @Test func theParserAnswersForEveryEncodedFrame() throws {
        for bytes in Self.encoded {
            let parsed = try OverlayFrameCodec.decodeWithParser(bytes)
            #expect(parsed != nil, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(try OverlayFrameCodec.decodeWithParser(Array(Self.handMade[1].utf8)) != nil, "white space")
    }

    @Test func decodeGivesTheReferenceAnswerOnTheVectors() {
        let vectors = Self.encoded + Self.handMade.map { Array($0.utf8) } + [Array(#"{"version":2,"type":"overlayIHave","messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":8950841495892884,"senderNickname":"bob","content":"","timestamp":1732147200101,"ids":["01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f"]}"#.utf8)]
        for bytes in vectors {
            #expect(Self.outcome(OverlayFrameCodec.decode, bytes) == Self.outcome(OverlayFrameCodec.decodeWithJSONDecoder, bytes),
                    "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Mutated frames: bytes replaced, dropped, doubled or swapped for
    /// JSON's own characters; fields made null, fractional or strings.
    @Test func decodeGivesTheReferenceAnswerOnARandomCorpus() {
        var random = SeededRandom(seed: 29)
        let seeds = Self.encoded + Self.handMade.map { Array($0.utf8) }
        let alphabet = Array(#"{}[]",:0123456789-.eE \nnulltruefalse\u00"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var answered = 0
        for round in 0..<3_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 8)], at: at)
                }
            }
            let fast = Self.outcome(OverlayFrameCodec.decode, bytes)
            let reference = Self.outcome(OverlayFrameCodec.decodeWithJSONDecoder, bytes)
            #expect(fast == reference, "\(String(decoding: bytes, as: UTF8.self))")
            if (try? OverlayFrameCodec.decodeWithParser(bytes)) != nil { answered += 1 }
        }
        // Most mutations break the frame (JSONDecoder then answers); some stay valid for the parser.
        #expect(answered >= 20, "the parser answered \(answered) of 3,000 mutations itself")
    }
}
