import ChatCore
import ChatWire
import ChatOverlay
import Foundation
import Testing

/// The overlay frames' JSON: every kind round-trips, caps hold, malformed
/// input is a named error, and a node without the capability reads any of
/// them as an unknown type it skips (PROTOCOL.md 4.4).
@Suite struct OverlayFrameCodecTests {
    static let alice = NodeNumber(rawValue: 4_393_289_295_727_693)!
    static let bob = NodeNumber(rawValue: 8_950_841_495_892_884)!
    static let header = OverlayFrameCodec.Header(messageId: MessageID("01934c04-c101-7a00-9b00-000000000001")!,
                                                 senderNumber: bob, senderNickname: "bob", timestamp: 1_732_147_200_101)
    static let id = MessageID("01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f")!

    static var message: P2PPayload {
        var message = P2PPayload(type: .publicMessage, messageId: id, senderNumber: alice, senderNickname: "alice",
                                 senderStage: "ios", content: "hi all", timestamp: 1_732_147_200_001)
        message.signature = "RgEj5AsoxfqExmlNsOus94wTXgB7g14AQGJwZjLY4E6BhoPBO+PMMtBo2yUiKF23BMOZzUw/Sb3ZYgKVMaU4CA=="
        message.authorKey = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
        return message
    }

    static let every: [OverlayFrame] = [
        .join, .forwardJoin(newNode: alice, ttl: 6), .neighbor(highPriority: true), .neighbor(highPriority: false),
        .neighborReply(accepted: true), .neighborReply(accepted: false), .disconnect,
        .shuffle(origin: alice, ttl: 3, peers: [alice, bob]), .shuffleReply(peers: [bob]), .shuffleReply(peers: []),
        .gossip(GossipMessage(hops: 3, message: message)), .ihave([id]), .graft([id, id]), .prune,
        .cardQuery(relay, origin: alice, target: bob), .card(relay, to: alice, card: Array(repeating: 7, count: 128)),
        .sealed(relay, envelope: Array(0..<200)),
    ]

    static let relay = RelayHeader(id: MessageID("01934c04-c201-7b00-8c00-000000000002")!, ttl: 8)

    @Test(arguments: every) func everyFrameRoundTrips(_ frame: OverlayFrame) throws {
        let bytes = OverlayFrameCodec.encode(frame, header: Self.header)
        let (header, decoded) = try OverlayFrameCodec.decode(bytes)
        #expect(header == Self.header)
        #expect(decoded == frame)
        #expect(bytes.count < 1_024, "small frames")
        #expect(decoded.isRelay == (OverlayFrameCodec.typeNames.suffix(3).contains { String(decoding: bytes, as: UTF8.self).contains("\"\($0)\"") }))
    }

    @Test(arguments: every) func aNodeWithoutTheCapabilitySkipsEveryFrame(_ frame: OverlayFrame) throws {
        let payload = try P2PFrameCodec.decode(OverlayFrameCodec.encode(frame, header: Self.header))
        #expect(!PayloadType.known.contains(payload.type), "an unknown type: decoded, counted and skipped")
        #expect(payload.senderNumber == Self.bob)
    }

    @Test func theDocumentedIHaveDecodes() throws {
        let text = #"{"version":2,"type":"overlayIHave","messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":8950841495892884,"senderNickname":"bob","content":"","timestamp":1732147200101,"ids":["01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f"]}"#
        let (_, frame) = try OverlayFrameCodec.decode(Array(text.utf8))
        #expect(frame == .ihave([Self.id]))
    }

    @Test func capsAreEnforced() {
        let ids = Array(repeating: Self.id, count: OverlayFrameCodec.maxIDs + 1)
        #expect(throws: OverlayFrameError.overCap(field: "ids", limit: OverlayFrameCodec.maxIDs)) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.ihave(ids), header: Self.header))
        }
        let peers = Array(repeating: Self.alice, count: OverlayFrameCodec.maxPeers + 1)
        #expect(throws: OverlayFrameError.overCap(field: "peers", limit: OverlayFrameCodec.maxPeers)) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.shuffleReply(peers: peers), header: Self.header))
        }
        #expect(throws: OverlayFrameError.invalid(field: "ttl")) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.forwardJoin(newNode: Self.alice, ttl: 17), header: Self.header))
        }
        #expect(throws: OverlayFrameError.invalid(field: "hops")) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.gossip(GossipMessage(hops: 0, message: Self.message)), header: Self.header))
        }
        #expect(throws: OverlayFrameError.invalid(field: "ids")) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.graft([]), header: Self.header))
        }
        #expect(throws: OverlayFrameError.tooLong(limit: ChatLimits.maxFrameBytes)) {
            try OverlayFrameCodec.decode(Array(repeating: UInt8(ascii: " "), count: ChatLimits.maxFrameBytes + 1))
        }
    }

    @Test func malformedFramesAreNamed() {
        var direct = Self.message
        direct.type = .directMessage
        #expect(throws: OverlayFrameError.invalid(field: "message"), "only public messages are gossiped") {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.gossip(GossipMessage(hops: 1, message: direct)), header: Self.header))
        }
        let common = #""version":2,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"b","content":"","timestamp":1732147200101"#
        #expect(throws: OverlayFrameError.unknownType("overlayTeleport")) {
            try OverlayFrameCodec.decode(Array(#"{"type":"overlayTeleport",\#(common)}"#.utf8))
        }
        #expect(throws: OverlayFrameError.missing("newNode")) {
            try OverlayFrameCodec.decode(Array(#"{"type":"overlayForwardJoin","ttl":2,\#(common)}"#.utf8))
        }
        #expect(throws: OverlayFrameError.invalid(field: "priority")) {
            try OverlayFrameCodec.decode(Array(#"{"type":"overlayNeighbor","priority":"urgent",\#(common)}"#.utf8))
        }
        for bad in ["", "{", "[]", #"{"type":"overlayJoin"}"#, #"{"type":"overlayPrune",\#(common)"#] {
            #expect(throws: (any Error).self, "\(bad)") { try OverlayFrameCodec.decode(Array(bad.utf8)) }
        }
    }

    /// Two copies of a key, at the top or inside the gossiped message: a
    /// reader that keeps the last one would see another frame.
    @Test func repeatedKeysAreRefusedAtAnyDepth() throws {
        let gossip = String(decoding: OverlayFrameCodec.encode(.gossip(GossipMessage(hops: 1, message: Self.message)),
                                                               header: Self.header), as: UTF8.self)
        let nested = gossip.replacingOccurrences(of: #""content":"hi all""#, with: #""content":"hi all","content":"pay mallory""#)
        #expect(nested != gossip)
        #expect(throws: OverlayFrameError.duplicateKey("content")) { try OverlayFrameCodec.decode(Array(nested.utf8)) }
        let top = gossip.replacingOccurrences(of: #""hops":1"#, with: #""hops":1,"hops":2"#)
        #expect(top != gossip)
        #expect(throws: OverlayFrameError.duplicateKey("hops")) { try OverlayFrameCodec.decode(Array(top.utf8)) }
    }

    /// The gossiped message and the sender's name pass the rules a frame of
    /// their own would: a relay cannot smuggle what a link would refuse.
    @Test func embeddedMessagesFollowTheFrameRules() {
        var ancient = Self.message
        ancient.timestamp = 1  // 1970: outside what any frame may carry
        #expect(throws: OverlayFrameError.self) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.gossip(GossipMessage(hops: 1, message: ancient)), header: Self.header))
        }
        var badName = Self.message
        badName.senderNickname = "ali\u{1B}[2Jce"
        #expect(throws: OverlayFrameError.self) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.gossip(GossipMessage(hops: 1, message: badName)), header: Self.header))
        }
        var header = Self.header
        header.senderNickname = "bob\u{7}"
        #expect(throws: OverlayFrameError.invalid(field: "senderNickname")) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.prune, header: header))
        }
    }
}

/// The sealed relay's frames: caps on cards and envelopes, checked before
/// anything is decoded, and the documented example.
@Suite struct RelayFrameCodecTests {
    static let header = OverlayFrameCodecTests.header
    static let relay = OverlayFrameCodecTests.relay

    @Test func aCardIsExactly128Bytes() {
        for count in [0, 127, 129] {
            #expect(throws: OverlayFrameError.self, "\(count)") {
                try OverlayFrameCodec.decode(OverlayFrameCodec.encode(
                    .card(Self.relay, to: OverlayFrameCodecTests.alice, card: Array(repeating: 1, count: count)), header: Self.header))
            }
        }
    }

    @Test func anEnvelopeIsCappedAndNotEmpty() throws {
        let most = OverlayFrameCodec.maxEnvelopeBytes
        let (_, frame) = try OverlayFrameCodec.decode(OverlayFrameCodec.encode(
            .sealed(Self.relay, envelope: Array(repeating: 9, count: most)), header: Self.header))
        #expect(frame == .sealed(Self.relay, envelope: Array(repeating: 9, count: most)))
        #expect(throws: OverlayFrameError.overCap(field: "envelope", limit: most)) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.sealed(Self.relay, envelope: Array(repeating: 9, count: most + 1)),
                                                                  header: Self.header))
        }
        #expect(throws: OverlayFrameError.invalid(field: "envelope")) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.sealed(Self.relay, envelope: []), header: Self.header))
        }
        let common = #""version":2,"messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":1,"senderNickname":"b","content":"","timestamp":1"#
        #expect(throws: OverlayFrameError.invalid(field: "envelope")) {
            try OverlayFrameCodec.decode(Array(#"{"type":"overlaySealed","relayId":"01934c04-c201-7b00-8c00-000000000002","ttl":1,"envelope":"not base64!",\#(common)}"#.utf8))
        }
        #expect(throws: OverlayFrameError.missing("relayId")) {
            try OverlayFrameCodec.decode(Array(#"{"type":"overlaySealed","ttl":1,"envelope":"AAAA",\#(common)}"#.utf8))
        }
        #expect(throws: OverlayFrameError.invalid(field: "ttl")) {
            try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.sealed(RelayHeader(id: Self.relay.id, ttl: 17), envelope: [1]),
                                                                  header: Self.header))
        }
    }

    /// PROTOCOL.md's example of an `overlaySealed` frame decodes to what it
    /// says: its envelope is the sealed-envelope vector's ("Sealed envelopes").
    @Test func theDocumentedSealedFrameDecodes() throws {
        let text = #"{"version":2,"type":"overlaySealed","messageId":"01934c04-c101-7a00-9b00-000000000001","senderNumber":8950841495892884,"senderNickname":"bob","content":"","timestamp":1732147200101,"relayId":"01934c04-c201-7b00-8c00-000000000002","ttl":7,"envelope":"NOQtSvXvlKB6OoQgG4idTNGnQ8snsRtqEEOKj+uOWEeUXADUuzJgdeqUyNFNXSOJtf+vqiphZr7Lw+qowrFpRwMxEKGo3Yvzsec1o5rB3iJ+53SYSRqCd1C0R3I/pc2a3XCsP8gatP/prNXX5WpU7zeKahfGZay+iVX+1VzHY6cxCkQUOkdoW1k8FEz55sQEWWwQT+Zc5lJyGzRfWZ1k10HPsbiTNoInjUwRC/VWcqHSb002ghbFr6sXsM8fJecT65YwqnhjxBqZFWOvo52ULjmGTQ=="}"#
        let vector = "34e42d4af5ef94a07a3a84201b889d4cd1a743cb27b11b6a10438a8feb8e5847945c00d4bb326075ea94c8d14d5d2389b5ffafaa2a6166becbc3eaa8c2b16947033110a1a8dd8bf3b1e735a39ac1de227ee77498491a827750b447723fa5cd9add70ac3fc81ab4ffe9acd5d7e56a54ef378a6a17c665acbe8955fed55cc763a7310a44143a47685b593c144cf9e6c404596c104fe65ce652721b345f599d64d741cfb1b8933682278d4c110bf55672a1d26f4d368216c5afab17b0cf1f25e713eb9630aa7863c41a991563afa39d942e39864d"
        let (header, frame) = try OverlayFrameCodec.decode(Array(text.utf8))
        #expect(header == Self.header)
        guard case .sealed(let relay, let envelope) = frame else {
            Issue.record("not a sealed frame: \(frame)")
            return
        }
        #expect(relay == RelayHeader(id: Self.relay.id, ttl: 7))
        #expect(envelope.map { String(format: "%02x", $0) }.joined() == vector)
        #expect(try OverlayFrameCodec.decode(OverlayFrameCodec.encode(frame, header: header)).1 == frame)
    }
}
