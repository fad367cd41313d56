@testable import ChatCore
@testable import ChatWire
import Foundation
import TestSupport
import Testing

/// The fast path must agree with the JSONDecoder path: whenever it answers
/// (a frame or an error), the slow path gives the same answer for the same
/// bytes. `fast` is nil when the fast path steps aside.
@Suite struct FastPayloadParserTests {
    static func fast(_ bytes: [UInt8]) -> Result<P2PPayload, FrameError>? {
        do { return try P2PFrameCodec.decodeFast(bytes).map { .success($0) } } catch { return .failure(error) }
    }

    static func slow(_ bytes: [UInt8]) -> Result<P2PPayload, FrameError> {
        Result { () throws(FrameError) in try P2PFrameCodec.decodeWithJSONDecoder(bytes, using: JSONDecoder()) }
    }

    static let samples: [P2PPayload] = {
        var dm = P2PPayload(type: .directMessage, messageId: MessageID(millis: Fixtures.t0, random: (1, 2)), senderNumber: Fixtures.node(7),
                            senderNickname: "bö \"quoted\" \\ back", senderStage: "ios", content: "한국어 👋🏽 \n\t line", timestamp: Fixtures.t0,
                            targetNumber: Fixtures.node(8), refId: MessageID(millis: Fixtures.t0, random: (3, 4)), automatic: true)
        dm.capabilities = ["ack", "history"]
        dm.listenPort = 40123
        dm.instanceId = "abc-123"
        let plain = P2PPayload(type: .publicMessage, messageId: MessageID(millis: Fixtures.t0, random: (5, 6)), senderNumber: Fixtures.node(9),
                               senderNickname: "x", content: "hi", timestamp: Fixtures.t0)
        return [dm, plain]
    }()

    @Test func agreesOnEncodedFrames() {
        for sample in Self.samples {
            let bytes = Array(P2PFrameCodec.encode(sample).dropLast())
            #expect(Self.fast(bytes) == .success(sample))
            #expect(Self.slow(bytes) == .success(sample))
        }
    }

    @Test(arguments: [
        #"{"version":1,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"alice","content":"","timestamp":1732147200009,"senderStage":null}"#,
        #"{ "version" : 1 , "type":"x\u0041","messageId":"01934C04-C009-7A00-9B00-000000000008","senderNumber":4711,"senderNickname":"a\ud83d\ude00","content":"\/","timestamp":1732147200009}"#,
        #"{"version":1.0,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"a","content":"","timestamp":1732147200009}"#,
        #"{"version":1,"version":2,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"a","content":"","timestamp":1732147200009}"#,
        #"{"version":1,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":-1,"senderNickname":"a","content":"","timestamp":1732147200009}"#,
        #"{"version":1,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"a\ud800","content":"","timestamp":1732147200009}"#,
    ])
    func neverAcceptsWhatJSONDecoderRejectsOrReadsDifferently(line: String) {
        let bytes = Array(line.utf8)
        if let fast = Self.fast(bytes) { #expect(fast == Self.slow(bytes)) }
    }

    @Test func duplicateKeysAreRefusedByBothPaths() {
        let line = #"{"version":1,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"a","content":"","timestamp":1732147200009,"senderNickname":"b"}"#
        #expect(Self.fast(Array(line.utf8)) == .failure(.duplicateKey("senderNickname")))
        #expect(Self.slow(Array(line.utf8)) == .failure(.duplicateKey("senderNickname")))
        // Escaped spelling of the same key, and a repeat inside a history reply.
        let escaped = line.replacingOccurrences(of: #","senderNickname":"b""#, with: #","sender\u004eickname":"b""#)
        #expect(Self.fast(Array(escaped.utf8)) == .failure(.duplicateKey("senderNickname")))
        #expect(Self.slow(Array(escaped.utf8)) == .failure(.duplicateKey("senderNickname")))
        let nested = #"{"version":1,"type":"historyReply","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"a","content":"","timestamp":1732147200009,"messages":[{"content":"x","content":"y"}]}"#
        #expect(Self.fast(Array(nested.utf8)) == nil)
        #expect(Self.slow(Array(nested.utf8)) == .failure(.duplicateKey("content")))
        // Malformed after the repeat: the JSON error wins, in both paths.
        let broken = String(line.dropLast()) + ","
        #expect(Self.fast(Array(broken.utf8)) == nil)
        #expect(Self.slow(Array(broken.utf8)) == .failure(.notJSON))
    }

    /// A key the fast path does not know (a field added later) is never
    /// skipped there: it steps aside and JSONDecoder reads the frame.
    @Test func unknownKeysStepAside() {
        let line = #"{"version":1,"type":"ping","messageId":"01934c04-c009-7a00-9b00-000000000008","senderNumber":4711,"senderNickname":"a","content":"","timestamp":1732147200009,"addedLater":"abc"}"#
        #expect(Self.fast(Array(line.utf8)) == nil)
        #expect((try? Self.slow(Array(line.utf8)).get())?.senderNickname == "a")
    }

    /// Seeded random byte edits of valid frames: the fast path either steps
    /// aside (nil) or agrees with JSONDecoder. Only valid UTF-8 is compared:
    /// the codec refuses anything else before either parser runs.
    @Test(.heavy) func randomEditsNeverDisagree() async {
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return seed >> 33 }
        let alphabet = Array(#"{}[]":,\0123456789-.eE truefalsnul"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
        var checked = 0
        for sample in Self.samples {
            let original = Array(P2PFrameCodec.encode(sample).dropLast())
            for round in 0..<3_000 {
                // CPU-bound: let the suite's network tests have the pool too.
                if round % 100 == 0 { await Task.yield() }
                var bytes = original
                for _ in 0..<(1 + Int(next() % 3)) {
                    let position = Int(next() % UInt64(bytes.count))
                    switch next() % 3 {
                    case 0: bytes[position] = alphabet[Int(next() % UInt64(alphabet.count))]
                    case 1: bytes.remove(at: position)
                    default: bytes.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: position)
                    }
                    if bytes.isEmpty { bytes = original }
                }
                guard String(validating: bytes, as: UTF8.self) != nil else { continue }
                if let fast = Self.fast(bytes) {
                    checked += 1
                    #expect(fast == Self.slow(bytes), "\(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
        #expect(checked > 0, "some edits stay valid, so the comparison ran")
    }
}
