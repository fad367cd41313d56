import ChatCore
import ChatWire
import Foundation

/// The overlay frames on the wire: one JSON object each, with the common
/// fields of every lanchat frame (`version`, `type`, `messageId`,
/// `senderNumber`, `senderNickname`, `content` = "", `timestamp`), so a
/// node without the capability decodes it as an unknown type and skips it
/// (PROTOCOL.md 4.4). Example (an IHAVE):
///
///     {"version":2,"type":"overlayIHave","messageId":"01934c04-c101-7a00-9b00-000000000001",
///      "senderNumber":8950841495892884,"senderNickname":"bob","content":"","timestamp":1732147200101,
///      "ids":["01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f"]}
///
/// Caps, checked when decoding: the frame is at most
/// `ChatLimits.maxFrameBytes`; `ids` 1...`maxIDs`; `peers` at most
/// `maxPeers`; `ttl` 0...`maxTTL`; `hops` 1...255; a gossip `message` is a
/// `publicMessage` with no nested `messages`; a `card` is base64 of
/// exactly `cardBytes`, an `envelope` of 1...`maxEnvelopeBytes` (lengths
/// checked before decoding).
public enum OverlayFrameCodec {
    public static let maxIDs = 64
    public static let maxPeers = 8
    public static let maxTTL = 16
    /// A sealed envelope's bytes: its base64 (4/3) and the frame's other
    /// fields stay under `ChatLimits.maxFrameBytes`.
    public static let maxEnvelopeBytes = 46 * 1024
    /// A recipient card: static key (32), identity (32), signature (64).
    public static let cardBytes = 128

    /// The common fields of the frame that carries an overlay frame.
    public struct Header: Sendable, Hashable {
        public var messageId: MessageID
        public var senderNumber: NodeNumber
        public var senderNickname: String
        public var timestamp: Int64

        public init(messageId: MessageID, senderNumber: NodeNumber, senderNickname: String, timestamp: Int64) {
            self.messageId = messageId
            self.senderNumber = senderNumber
            self.senderNickname = senderNickname
            self.timestamp = timestamp
        }
    }

    /// The `type` names, one per frame kind.
    public static let typeNames = ["overlayJoin", "overlayForwardJoin", "overlayNeighbor", "overlayNeighborReply",
                                   "overlayDisconnect", "overlayShuffle", "overlayShuffleReply",
                                   "overlayGossip", "overlayIHave", "overlayGraft", "overlayPrune",
                                   "overlayCardQuery", "overlayCard", "overlaySealed"]

    public static func encode(_ frame: OverlayFrame, header: Header) -> [UInt8] {
        let wire = wire(of: frame, header: header)
        return OverlayFrameEncoder.encode(wire) ?? encodedByJSONEncoder(wire)
    }

    /// The reference encoder: JSONEncoder on the same `Wire`. Kept for the
    /// tests that hold the hand-written encoder to it.
    package static func encodeWithJSONEncoder(_ frame: OverlayFrame, header: Header) -> [UInt8] {
        encodedByJSONEncoder(wire(of: frame, header: header))
    }

    private static func encodedByJSONEncoder(_ wire: Wire) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array((try? encoder.encode(wire)) ?? Data())
    }

    private static func wire(of frame: OverlayFrame, header: Header) -> Wire {
        var wire = Wire(version: P2PPayload.protocolVersion, type: "", messageId: header.messageId,
                        senderNumber: header.senderNumber, senderNickname: header.senderNickname,
                        content: "", timestamp: header.timestamp)
        switch frame {
        case .join: wire.type = "overlayJoin"
        case .forwardJoin(let newNode, let ttl): (wire.type, wire.newNode, wire.ttl) = ("overlayForwardJoin", newNode, ttl)
        case .neighbor(let high): (wire.type, wire.priority) = ("overlayNeighbor", high ? "high" : "low")
        case .neighborReply(let accepted): (wire.type, wire.accepted) = ("overlayNeighborReply", accepted)
        case .disconnect: wire.type = "overlayDisconnect"
        case .shuffle(let origin, let ttl, let peers): (wire.type, wire.origin, wire.ttl, wire.peers) = ("overlayShuffle", origin, ttl, peers)
        case .shuffleReply(let peers): (wire.type, wire.peers) = ("overlayShuffleReply", peers)
        case .gossip(let gossip): (wire.type, wire.hops, wire.message) = ("overlayGossip", gossip.hops, gossip.message)
        case .ihave(let ids): (wire.type, wire.ids) = ("overlayIHave", ids)
        case .graft(let ids): (wire.type, wire.ids) = ("overlayGraft", ids)
        case .prune: wire.type = "overlayPrune"
        case .cardQuery(let relay, let origin, let target):
            (wire.type, wire.relayId, wire.ttl, wire.origin, wire.target) = ("overlayCardQuery", relay.id, relay.ttl, origin, target)
        case .card(let relay, let to, let card):
            (wire.type, wire.relayId, wire.ttl, wire.target, wire.card) = ("overlayCard", relay.id, relay.ttl, to, Data(card).base64EncodedString())
        case .sealed(let relay, let envelope):
            (wire.type, wire.relayId, wire.ttl, wire.envelope) = ("overlaySealed", relay.id, relay.ttl, Data(envelope).base64EncodedString())
        }
        return wire
    }

    /// Decodes one frame; a named error for anything malformed or over a
    /// cap. The byte parser (`OverlayFrameParser`) reads the usual frames;
    /// whatever it steps aside for goes through JSONDecoder, which names
    /// the error. Either way the answer is `decodeWithJSONDecoder`'s.
    public static func decode(_ bytes: [UInt8]) throws(OverlayFrameError) -> (Header, OverlayFrame) {
        try refuseRepeats(bytes)
        let wire = bytes.withUnsafeBufferPointer { OverlayFrameParser.parse($0) }
        if let wire { return try checked(wire) }
        return try checked(decodedByJSONDecoder(bytes))
    }

    /// A frame of an overlay type that the byte parser reads and that
    /// passes every check, or nil: a frame of another type, one the parser
    /// steps aside for, or a malformed one. The transport tries it before
    /// the generic frame decoder, whose fast path steps aside for every
    /// overlay frame (their fields are not a payload's) and left them to
    /// JSONDecoder: 9% of all the CPU of 300 nodes passing messages. Nil
    /// sends the frame down the generic path, which names any error.
    public static func decodeIfOverlay(_ bytes: [UInt8]) -> (header: Header, type: String, frame: OverlayFrame)? {
        // Every frame on a link comes here first: a chat frame costs one
        // scan for the key as the encoders write it, not a parse.
        guard mayBeOverlay(bytes), let wire = bytes.withUnsafeBufferPointer({ OverlayFrameParser.parse($0) }),
              wire.type.hasPrefix("overlay") else { return nil }
        do {
            try refuseRepeats(bytes)
            let (header, frame) = try checked(wire)
            return (header, wire.type, frame)
        } catch {
            return nil
        }
    }

    private static let typeKey = Array(#""type":"overlay"#.utf8)

    /// Whether `bytes` hold `"type":"overlay` anywhere (a frame written
    /// with white space there takes the generic path: slower, not wrong).
    static func mayBeOverlay(_ bytes: [UInt8]) -> Bool {
        let key = typeKey
        return bytes.withUnsafeBufferPointer { buffer in
            guard buffer.count >= key.count else { return false }
            var index = 0
            while index <= buffer.count - key.count {
                if buffer[index] == 0x22, buffer[index + 1] == 0x74, key.indices.allSatisfy({ buffer[index + $0] == key[$0] }) { return true }
                index += 1
            }
            return false
        }
    }

    /// The byte parser alone: nil when it steps aside. Whenever it answers,
    /// the answer (frame or error) is `decodeWithJSONDecoder`'s.
    package static func decodeWithParser(_ bytes: [UInt8]) throws(OverlayFrameError) -> (Header, OverlayFrame)? {
        try refuseRepeats(bytes)
        guard let wire = bytes.withUnsafeBufferPointer({ OverlayFrameParser.parse($0) }) else { return nil }
        return try checked(wire)
    }

    /// The reference decoder: JSONDecoder into `Wire`, then the same
    /// checks. Kept for the differential tests, the fuzz target and the
    /// bench row's baseline.
    public static func decodeWithJSONDecoder(_ bytes: [UInt8]) throws(OverlayFrameError) -> (Header, OverlayFrame) {
        try refuseRepeats(bytes)
        return try checked(decodedByJSONDecoder(bytes))
    }

    private static func decodedByJSONDecoder(_ bytes: [UInt8]) throws(OverlayFrameError) -> Wire {
        do {
            return try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch {
            throw .malformed("\(error)".prefix(200).description)
        }
    }

    private static func refuseRepeats(_ bytes: [UInt8]) throws(OverlayFrameError) {
        guard bytes.count <= ChatLimits.maxFrameBytes else { throw .tooLong(limit: ChatLimits.maxFrameBytes) }
        // As for every frame: a reader in another language would keep the
        // other copy of a repeated key, and see another message.
        if let key = P2PFrameCodec.firstDuplicateKey(in: bytes) { throw .duplicateKey(String(key.prefix(64))) }
    }

    private static func checked(_ wire: Wire) throws(OverlayFrameError) -> (Header, OverlayFrame) {
        guard wire.version >= 1 else { throw .invalid(field: "version") }
        // The sender's name reaches logs and screens: the rules of every name.
        guard (try? NodeName.validated(wire.senderNickname)) != nil else { throw .invalid(field: "senderNickname") }
        let header = Header(messageId: wire.messageId, senderNumber: wire.senderNumber,
                            senderNickname: wire.senderNickname, timestamp: wire.timestamp)
        return (header, try frame(of: wire))
    }

    private static func frame(of wire: Wire) throws(OverlayFrameError) -> OverlayFrame {
        func need<T>(_ value: T?, _ field: String) throws(OverlayFrameError) -> T {
            guard let value else { throw .missing(field) }
            return value
        }
        func ttl() throws(OverlayFrameError) -> Int {
            let ttl = try need(wire.ttl, "ttl")
            guard (0...maxTTL).contains(ttl) else { throw .invalid(field: "ttl") }
            return ttl
        }
        func peers() throws(OverlayFrameError) -> [NodeNumber] {
            let peers = try need(wire.peers, "peers")
            guard peers.count <= maxPeers else { throw .overCap(field: "peers", limit: maxPeers) }
            return peers
        }
        func ids() throws(OverlayFrameError) -> [MessageID] {
            let ids = try need(wire.ids, "ids")
            guard !ids.isEmpty else { throw .invalid(field: "ids") }
            guard ids.count <= maxIDs else { throw .overCap(field: "ids", limit: maxIDs) }
            return ids
        }
        func relay() throws(OverlayFrameError) -> RelayHeader {
            RelayHeader(id: try need(wire.relayId, "relayId"), ttl: try ttl())
        }
        func bytes(_ text: String?, _ field: String, limit: Int) throws(OverlayFrameError) -> [UInt8] {
            let text = try need(text, field)
            // The length is checked before decoding: base64 is 4 characters per 3 bytes.
            guard text.utf8.count <= (limit + 2) / 3 * 4 else { throw .overCap(field: field, limit: limit) }
            guard let data = Data(base64Encoded: text) else { throw .invalid(field: field) }
            guard data.count <= limit else { throw .overCap(field: field, limit: limit) }
            return Array(data)
        }
        switch wire.type {
        case "overlayJoin": return .join
        case "overlayForwardJoin": return .forwardJoin(newNode: try need(wire.newNode, "newNode"), ttl: try ttl())
        case "overlayNeighbor":
            switch try need(wire.priority, "priority") {
            case "high": return .neighbor(highPriority: true)
            case "low": return .neighbor(highPriority: false)
            default: throw .invalid(field: "priority")
            }
        case "overlayNeighborReply": return .neighborReply(accepted: try need(wire.accepted, "accepted"))
        case "overlayDisconnect": return .disconnect
        case "overlayShuffle": return .shuffle(origin: try need(wire.origin, "origin"), ttl: try ttl(), peers: try peers())
        case "overlayShuffleReply": return .shuffleReply(peers: try peers())
        case "overlayGossip":
            let hops = try need(wire.hops, "hops")
            guard (1...255).contains(hops) else { throw .invalid(field: "hops") }
            let message = try need(wire.message, "message")
            guard message.type == .publicMessage, message.messages == nil else { throw .invalid(field: "message") }
            // The relayed message passes the rules of a frame of its own.
            do { try P2PFrameCodec.validateEmbedded(message) } catch { throw .invalidMessage(error.description) }
            return .gossip(GossipMessage(hops: hops, message: message))
        case "overlayIHave": return .ihave(try ids())
        case "overlayGraft": return .graft(try ids())
        case "overlayPrune": return .prune
        case "overlayCardQuery":
            return .cardQuery(try relay(), origin: try need(wire.origin, "origin"), target: try need(wire.target, "target"))
        case "overlayCard":
            let card = try bytes(wire.card, "card", limit: cardBytes)
            guard card.count == cardBytes else { throw .invalid(field: "card") }
            return .card(try relay(), to: try need(wire.target, "target"), card: card)
        case "overlaySealed":
            let envelope = try bytes(wire.envelope, "envelope", limit: maxEnvelopeBytes)
            guard !envelope.isEmpty else { throw .invalid(field: "envelope") }
            return .sealed(try relay(), envelope: envelope)
        default: throw .unknownType(String(wire.type.prefix(64)))
        }
    }

    /// Every field any overlay frame uses; absent ones are omitted.
    struct Wire: Codable {
        var version: Int
        var type: String
        var messageId: MessageID
        var senderNumber: NodeNumber
        var senderNickname: String
        var content: String
        var timestamp: Int64
        var newNode: NodeNumber?
        var ttl: Int?
        var priority: String?
        var accepted: Bool?
        var origin: NodeNumber?
        var peers: [NodeNumber]?
        var hops: Int?
        var message: P2PPayload?
        var ids: [MessageID]?
        var relayId: MessageID?
        var target: NodeNumber?
        var card: String?
        var envelope: String?
    }
}

/// Why an overlay frame was refused.
public enum OverlayFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLong(limit: Int)
    /// Not JSON, or a common field missing or of the wrong type.
    case malformed(String)
    case unknownType(String)
    case missing(String)
    case invalid(field: String)
    case overCap(field: String, limit: Int)
    /// An object repeats a key (as `FrameError.duplicateKey`).
    case duplicateKey(String)
    /// A gossiped message that breaks a rule of its own frame type.
    case invalidMessage(String)

    public var description: String {
        switch self {
        case .tooLong(let limit): "overlay frame longer than \(limit) bytes"
        case .malformed(let reason): "malformed overlay frame: \(reason)"
        case .unknownType(let type): "unknown overlay frame type \(type)"
        case .missing(let field): "overlay frame lacks \(field)"
        case .invalid(let field): "overlay frame has an invalid \(field)"
        case .overCap(let field, let limit): "overlay frame's \(field) holds more than \(limit)"
        case .duplicateKey(let key): "overlay frame repeats the key \(key)"
        case .invalidMessage(let reason): "overlay frame carries an invalid message: \(reason)"
        }
    }
}
