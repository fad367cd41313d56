import ChatCore
import Foundation

/// One `P2PPayload` as the bytes of one frame: in protocol v2 a frame is
/// the plaintext of one AEAD record (docs/PROTOCOL.md, 4), so the records
/// frame the stream (`RecordFrameDecoder`) and this codec reads and writes
/// what one record holds: one UTF-8 JSON object, validated field by field,
/// a malformed one throwing a named `FrameError`. A record's plaintext is
/// under 64 KiB (`RecordCipher.maxPlaintextLength`), within
/// `maxFrameLength`.
///
///     {"version":2,"type":"ping","messageId":"…","senderNumber":7,
///      "senderNickname":"bob","content":"","timestamp":1732147200000}
public enum P2PFrameCodec {
    /// The most bytes a frame may take (`ChatLimits.maxFrameBytes`); the
    /// record layer keeps what a link carries below it.
    public static let maxFrameLength = ChatLimits.maxFrameBytes

    /// Decodes one frame (a record's plaintext) into a payload. The links'
    /// type: a caller in another module gets this compiled for it, where
    /// the generic form below runs unspecialized (witness calls and
    /// metadata look-ups on every frame).
    public static func decode(_ frame: [UInt8], using decoder: JSONDecoder = JSONDecoder()) throws(FrameError) -> P2PPayload {
        if let payload = try decodeFast(frame) { return payload }
        return try decodeWithJSONDecoder(frame, using: decoder)
    }

    /// Decodes one frame into a payload.
    public static func decode(_ frame: some Collection<UInt8>, using decoder: JSONDecoder = JSONDecoder()) throws(FrameError) -> P2PPayload {
        // Fast path for the common flat frames; anything it steps aside for
        // goes through JSONDecoder, which also names every error.
        if let payload = try decodeFast(frame) { return payload }
        return try decodeWithJSONDecoder(frame, using: decoder)
    }

    /// The fast path alone: nil when it steps aside (or the bytes are not
    /// contiguous). Whenever it answers, the answer (frame or error) is the
    /// one `decodeWithJSONDecoder` gives: the differential tests and the
    /// payload-decoding fuzz target check exactly that.
    static func decodeFast(_ frame: some Collection<UInt8>) throws(FrameError) -> P2PPayload? {
        let outcome = frame.withContiguousStorageIfAvailable { bytes -> FastPayloadParser.Outcome in
            String(validating: bytes, as: UTF8.self) == nil ? .stepAside : FastPayloadParser.parse(bytes)
        }
        switch outcome {
        case .payload(let payload)?:
            try validate(payload)
            return payload
        case .duplicateKey(let key)?: throw .duplicateKey(key)
        case .stepAside?, nil: return nil
        }
    }

    /// The slow path alone: repeated keys refused, then JSONDecoder.
    static func decodeWithJSONDecoder(_ frame: some Collection<UInt8>, using decoder: JSONDecoder) throws(FrameError) -> P2PPayload {
        let data = Data(frame)
        guard String(validating: data, as: UTF8.self) != nil else { throw .invalidUTF8 }
        let duplicate = data.withUnsafeBytes { raw in
            DuplicateKeyScanner.firstDuplicate(in: raw.bindMemory(to: UInt8.self))
        }
        if let duplicate { throw .duplicateKey(duplicate) }
        let payload: P2PPayload
        do {
            payload = try decoder.decode(P2PPayload.self, from: data)
        } catch let error as DecodingError {
            throw Self.frameError(for: error, data: data)
        } catch {
            throw .notJSON
        }
        try validate(payload)
        return payload
    }

    /// Encodes `payload` as its JSON followed by "\n". The link drops the
    /// "\n" before sealing (`P2PService.sealPending`); it is kept for the
    /// one frame sent bare, the refusal a protocol v1 node reads as a line.
    public static func encode(_ payload: P2PPayload) -> Data {
        if var json = P2PFrameEncoder.encode(payload) {
            json.append(0x0A)
            return Data(json)
        }
        // Encoding a value of this shape cannot fail: no floats, no
        // non-string keys.
        var data = try! JSONEncoder().encode(payload)
        data.append(0x0A)
        return data
    }

    /// For codecs of frames that carry a payload inside them (the overlay's
    /// gossip): the first key an object repeats anywhere in `bytes`, which
    /// such a codec must refuse as this one does (`DuplicateKeyScanner`).
    public static func firstDuplicateKey(in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { DuplicateKeyScanner.firstDuplicate(in: $0) }
    }

    /// The field rules a payload decoded inside another frame must pass,
    /// the same as for a frame of its own (names, lengths, ids).
    public static func validateEmbedded(_ payload: P2PPayload) throws(FrameError) {
        try validate(payload)
    }

    /// Field checks that the JSON types alone do not express.
    static func validate(_ payload: P2PPayload) throws(FrameError) {
        if payload.version < 1 { throw .invalidValue(field: "version", reason: "must be at least 1") }
        // Names reach every peer's screen and store: same rules as local ones.
        do { _ = try NodeName.validated(payload.senderNickname) } catch {
            throw .invalidValue(field: "senderNickname", reason: error.description)
        }
        if let stage = payload.senderStage {
            do { _ = try NodeName.validated(stage) } catch { throw .invalidValue(field: "senderStage", reason: error.description) }
        }
        if !(Timestamp.earliestAccepted...Timestamp.latestAccepted).contains(payload.timestamp) {
            throw .invalidValue(field: "timestamp", reason: "outside years 2000...9999")
        }
        if let since = payload.sinceTimestamp, since < 0 || since > Timestamp.latestAccepted {
            throw .invalidValue(field: "sinceTimestamp", reason: "outside years 1970...9999")
        }
        if let port = payload.listenPort, !(1...65535).contains(port) {
            throw .invalidValue(field: "listenPort", reason: "not a TCP port")
        }
        if let limit = payload.limit, limit < 0 { throw .invalidValue(field: "limit", reason: "negative") }
        if let inner = payload.messages {
            for message in inner {
                if message.messages != nil {
                    throw .invalidValue(field: "messages", reason: "nested history replies")
                }
                try validate(message)
            }
        }
    }

    private static func frameError(for error: DecodingError, data: Data) -> FrameError {
        switch error {
        case .keyNotFound(let key, _):
            return .missingField(key.stringValue)
        case .typeMismatch(_, let context):
            if context.codingPath.isEmpty { return .notAnObject }
            return .wrongFieldType(fieldPath(context.codingPath))
        case .valueNotFound(_, let context):
            // A JSON null where a value is required; a bare `null` frame is
            // JSON but not an object.
            if context.codingPath.isEmpty { return .notAnObject }
            return .wrongFieldType(fieldPath(context.codingPath))
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                // Top level: not JSON at all, or JSON but not an object, or
                // (Foundation on Linux reports it the same way, with no path)
                // an object with a number its field's type cannot hold.
                guard let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
                    return .notJSON
                }
                guard let object = json as? [String: Any] else { return .notAnObject }
                if let field = unrepresentableNumber(in: object) {
                    return .invalidValue(field: field, reason: "not a whole number in range")
                }
                return .notJSON
            }
            return .invalidValue(field: fieldPath(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return .notJSON
        }
    }

    /// The integer fields in the order `P2PPayload` decodes them, with the
    /// values their Swift types hold (as doubles: -2^63..<2^63 and so on).
    private static let integerFields: [(name: String, range: Range<Double>)] = [
        ("version", Double(Int.min)..<Double(Int.max)),
        ("senderNumber", 0..<Double(UInt64.max)),
        ("timestamp", Double(Int64.min)..<Double(Int64.max)),
        ("targetNumber", 0..<Double(UInt64.max)),
        ("listenPort", Double(Int.min)..<Double(Int.max)),
        ("sinceTimestamp", Double(Int64.min)..<Double(Int64.max)),
        ("limit", Double(Int.min)..<Double(Int.max)),
    ]

    /// The path of the first integer field holding a fraction or a value
    /// out of its type's range, looking inside `messages` too.
    private static func unrepresentableNumber(in object: [String: Any]) -> String? {
        for field in integerFields {
            guard let number = object[field.name] as? NSNumber else { continue }
            let value = number.doubleValue
            if !field.range.contains(value) || value.rounded(.towardZero) != value { return field.name }
        }
        if let messages = object["messages"] as? [Any] {
            for (index, element) in messages.enumerated() {
                if let inner = element as? [String: Any], let field = unrepresentableNumber(in: inner) {
                    return "messages.[\(index)].\(field)"
                }
            }
        }
        return nil
    }

    private static func fieldPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
