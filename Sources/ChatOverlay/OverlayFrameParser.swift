import ChatCore
import ChatWire

/// The overlay codec's fast path, in the manner of ChatWire's
/// `FastPayloadParser`, reading with the same tokens (`JSONByteReader`,
/// through `JSONCursor`): one pass over a frame's bytes into
/// `OverlayFrameCodec.Wire` for the shape every overlay frame has (one
/// object of the fields it knows: strings, whole numbers, booleans, nulls,
/// arrays of ids or numbers, and a gossip's `message`, itself parsed by
/// `FastPayloadParser`). It steps aside for anything else, unusual or
/// wrong (an unknown key, a fraction, a bad escape, a value of the wrong
/// type or out of range, a missing field), and JSONDecoder then decides and
/// names the error: so whenever it answers, the answer is the one the
/// reference decoder gives (`OverlayFrameParserTests` check that).
/// Repeated keys were refused before it runs. Speed: bench row
/// `overlay-codec`.
struct OverlayFrameParser {
    var cursor: JSONCursor

    /// The frame's fields, or nil to step aside.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> OverlayFrameCodec.Wire? {
        // JSONDecoder refuses invalid UTF-8; the token reader would repair it.
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var parser = OverlayFrameParser(bytes: bytes)
        return parser.object()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { cursor = JSONCursor(bytes) }

    private var index: Int {
        get { cursor.index }
        set { cursor.index = newValue }
    }
    private var bytes: UnsafeBufferPointer<UInt8> { cursor.bytes }

    private enum Field: String {
        case version, type, messageId, senderNumber, senderNickname, content, timestamp
        case newNode, ttl, priority, accepted, origin, peers, hops, message, ids, relayId, target, card, envelope
    }

    private mutating func object() -> OverlayFrameCodec.Wire? {
        cursor.skipWhitespace()
        guard cursor.expect(UInt8(ascii: "{")) else { return nil }
        var version: Int?, type: String?, messageId: MessageID?, sender: NodeNumber?, nickname: String?
        var content: String?, timestamp: Int64?
        var wire = OverlayFrameCodec.Wire(version: 0, type: "", messageId: MessageID(millis: 0, random: (0, 0)),
                                          senderNumber: NodeNumber(rawValue: 1)!, senderNickname: "", content: "", timestamp: 0)
        cursor.skipWhitespace()
        if !cursor.expect(UInt8(ascii: "}")) {
            repeat {
                cursor.skipWhitespace()
                guard let key = cursor.readString(), let field = Field(rawValue: key) else { return nil }
                cursor.skipWhitespace()
                guard cursor.expect(UInt8(ascii: ":")) else { return nil }
                cursor.skipWhitespace()
                // An optional field given as null is absent, as for JSONDecoder's decodeIfPresent.
                let isNull = index < bytes.count && bytes[index] == UInt8(ascii: "n")
                switch field {
                case .version: guard let v = int() else { return nil }; version = v
                case .type: guard let v = cursor.readString() else { return nil }; type = v
                case .messageId: guard let v = id() else { return nil }; messageId = v
                case .senderNumber: guard let v = number() else { return nil }; sender = v
                case .senderNickname: guard let v = cursor.readString() else { return nil }; nickname = v
                case .content: guard let v = cursor.readString() else { return nil }; content = v
                case .timestamp: guard let v = cursor.readInteger() else { return nil }; timestamp = v
                default:
                    if isNull {
                        guard cursor.readLiteral("null") else { return nil }
                    } else {
                        guard optionalField(field, into: &wire) else { return nil }
                    }
                }
                cursor.skipWhitespace()
            } while cursor.expect(UInt8(ascii: ","))
            guard cursor.expect(UInt8(ascii: "}")) else { return nil }
        }
        cursor.skipWhitespace()
        guard index == bytes.count else { return nil }
        guard let version, let type, let messageId, let sender, let nickname, let content, let timestamp else { return nil }
        (wire.version, wire.type, wire.messageId, wire.senderNumber) = (version, type, messageId, sender)
        (wire.senderNickname, wire.content, wire.timestamp) = (nickname, content, timestamp)
        return wire
    }

    /// One of the fields only some frames carry, not null: false to step aside.
    private mutating func optionalField(_ field: Field, into wire: inout OverlayFrameCodec.Wire) -> Bool {
        switch field {
        case .newNode: guard let v = number() else { return false }; wire.newNode = v
        case .ttl: guard let v = int() else { return false }; wire.ttl = v
        case .priority: guard let v = cursor.readString() else { return false }; wire.priority = v
        case .accepted: guard let v = bool() else { return false }; wire.accepted = v
        case .origin: guard let v = number() else { return false }; wire.origin = v
        case .target: guard let v = number() else { return false }; wire.target = v
        case .hops: guard let v = int() else { return false }; wire.hops = v
        case .relayId: guard let v = id() else { return false }; wire.relayId = v
        case .card: guard let v = cursor.readString() else { return false }; wire.card = v
        case .envelope: guard let v = cursor.readString() else { return false }; wire.envelope = v
        case .peers: guard let v = array({ $0.number() }) else { return false }; wire.peers = v
        case .ids: guard let v = array({ $0.id() }) else { return false }; wire.ids = v
        case .message: guard let v = message() else { return false }; wire.message = v
        case .version, .type, .messageId, .senderNumber, .senderNickname, .content, .timestamp: return false
        }
        return true
    }

    // MARK: Values (nil: step aside)

    /// The relayed frame: its extent found by brackets outside strings,
    /// then `FastPayloadParser` on exactly those bytes (a flat object; it
    /// steps aside for anything nested or unknown, and so does this).
    private mutating func message() -> P2PPayload? {
        let start = index
        guard cursor.expect(UInt8(ascii: "{")) else { return nil }
        while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
            if bytes[index] == UInt8(ascii: "\"") {
                guard cursor.skipString() else { return nil }
            } else {
                index += 1
            }
        }
        guard cursor.expect(UInt8(ascii: "}")) else { return nil }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        guard case .payload(let payload) = FastPayloadParser.parse(slice) else { return nil }
        return payload
    }

    private mutating func array<T>(_ element: (inout Self) -> T?) -> [T]? {
        guard cursor.expect(UInt8(ascii: "[")) else { return nil }
        var items: [T] = []
        cursor.skipWhitespace()
        if cursor.expect(UInt8(ascii: "]")) { return items }
        repeat {
            cursor.skipWhitespace()
            guard let item = element(&self) else { return nil }
            items.append(item)
            cursor.skipWhitespace()
        } while cursor.expect(UInt8(ascii: ","))
        return cursor.expect(UInt8(ascii: "]")) ? items : nil
    }

    private mutating func id() -> MessageID? {
        guard let text = cursor.readString() else { return nil }
        return MessageID(text)
    }

    private mutating func number() -> NodeNumber? {
        guard let value = cursor.readInteger(), value >= 0 else { return nil }
        return NodeNumber(rawValue: UInt64(value))
    }

    private mutating func int() -> Int? {
        cursor.readInteger().flatMap { Int(exactly: $0) }
    }

    private mutating func bool() -> Bool? {
        if cursor.readLiteral("true") { return true }
        if cursor.readLiteral("false") { return false }
        return nil
    }
}
