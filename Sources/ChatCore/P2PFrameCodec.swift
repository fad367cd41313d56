import Foundation

/// Newline-delimited JSON framing for `P2PPayload`: one UTF-8 JSON object
/// per line, at most `maxLineLength` bytes (64 KiB) before the "\n".
///
/// Decoding is incremental: `append` the bytes as they arrive, then call
/// `decode()` until it returns nil ("need more bytes"). A malformed line
/// throws a named `FrameError` and is consumed, so the caller may count it
/// and go on; an over-long line throws from `append` and ends the stream.
///
///     {"version":1,"type":"ping","messageId":"…","senderNumber":7,
///      "senderNickname":"bob","content":"","timestamp":1732147200000}\n
public struct P2PFrameCodec: @unchecked Sendable {
    // @unchecked: JSONDecoder is a class, but this codec's instance is
    // private, never shared, and only read (configuration is set once).
    public static let maxLineLength = 64 * 1024

    private var lines: LineFrameDecoder
    private let decoder = JSONDecoder()

    public init(maxLineLength: Int = P2PFrameCodec.maxLineLength) {
        lines = LineFrameDecoder(maxLineLength: maxLineLength)
    }

    public var bufferedByteCount: Int { lines.bufferedByteCount }

    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(FrameError) {
        try lines.append(bytes)
    }

    /// The next frame, or nil when more bytes are needed.
    public mutating func decode() throws(FrameError) -> P2PPayload? {
        guard let line = lines.nextLine() else { return nil }
        return try Self.decodeLine(line, using: decoder)
    }

    /// Decodes one line (without its "\n") into a payload.
    public static func decodeLine(_ line: some Collection<UInt8>, using decoder: JSONDecoder = JSONDecoder()) throws(FrameError) -> P2PPayload {
        // Fast path for the common flat frames; anything it does not take
        // goes through JSONDecoder below, which also names every error.
        let fast = line.withContiguousStorageIfAvailable { bytes -> P2PPayload? in
            String(validating: bytes, as: UTF8.self) == nil ? nil : FastPayloadParser.parse(bytes)
        }
        if let fast, let payload = fast {
            try validate(payload)
            return payload
        }
        let data = Data(line)
        guard String(validating: data, as: UTF8.self) != nil else { throw .invalidUTF8 }
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

    /// Encodes `payload` as one line, "\n" included.
    public static func encode(_ payload: P2PPayload) -> Data {
        // Encoding a value of this shape cannot fail: no floats, no
        // non-string keys.
        var data = try! JSONEncoder().encode(payload)
        data.append(0x0A)
        return data
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
            // A JSON null where a value is required; a bare `null` line is
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

/// The decoder's fast path: a single pass over one frame's bytes for the
/// shape every frame but a history reply has (a flat object of strings,
/// whole numbers, booleans, nulls and string arrays). It returns nil for
/// anything else, unusual or wrong (nested objects, fractions, duplicate
/// keys, a missing field, a value out of range, bad escapes), and the caller
/// then runs `JSONDecoder`, which decides and names the error: the fast path
/// only ever accepts what `JSONDecoder` accepts, with the same result.
/// About 5x faster than `JSONDecoder` for a chat frame.
struct FastPayloadParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> P2PPayload? {
        var parser = FastPayloadParser(bytes: bytes)
        return parser.object()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private enum Value {
        case string(String), integer(Int64), bool(Bool), null, strings([String])
    }

    private mutating func object() -> P2PPayload? {
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var version: Int?, type: PayloadType?, messageId: MessageID?, sender: NodeNumber?, nickname: String?
        var stage: String??, content: String?, timestamp: Int64?, target: NodeNumber??, refId: MessageID??
        var automatic: Bool??, instanceId: String??, listenPort: Int??, capabilities: [String]??
        var sinceTimestamp: Int64??, sinceId: MessageID??, limit: Int??, more: Bool??
        var seen = Set<String>()
        skipSpace()
        if !take(UInt8(ascii: "}")) {
            repeat {
                skipSpace()
                guard let key = string(), seen.insert(key).inserted else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")), let value = value() else { return nil }
                switch key {
                case "version": guard case .integer(let v) = value, let i = Int(exactly: v) else { return nil }; version = i
                case "type": guard case .string(let v) = value else { return nil }; type = PayloadType(name: v)
                case "messageId": guard let id = Self.id(value) else { return nil }; messageId = id
                case "senderNumber": guard let n = Self.number(value) else { return nil }; sender = n
                case "senderNickname": guard case .string(let v) = value else { return nil }; nickname = v
                case "senderStage": guard let v = Self.optional(value, Self.text) else { return nil }; stage = v
                case "content": guard case .string(let v) = value else { return nil }; content = v
                case "timestamp": guard case .integer(let v) = value else { return nil }; timestamp = v
                case "targetNumber": guard let v = Self.optional(value, Self.number) else { return nil }; target = v
                case "refId": guard let v = Self.optional(value, Self.id) else { return nil }; refId = v
                case "automatic": guard let v = Self.optional(value, Self.bool) else { return nil }; automatic = v
                case "instanceId": guard let v = Self.optional(value, Self.text) else { return nil }; instanceId = v
                case "listenPort": guard let v = Self.optional(value, Self.int) else { return nil }; listenPort = v
                case "capabilities": guard let v = Self.optional(value, Self.strings) else { return nil }; capabilities = v
                case "sinceTimestamp": guard let v = Self.optional(value, Self.int64) else { return nil }; sinceTimestamp = v
                case "sinceId": guard let v = Self.optional(value, Self.id) else { return nil }; sinceId = v
                case "limit": guard let v = Self.optional(value, Self.int) else { return nil }; limit = v
                case "more": guard let v = Self.optional(value, Self.bool) else { return nil }; more = v
                case "messages": return nil  // history replies: JSONDecoder
                default: break  // unknown fields are skipped, as Codable does
                }
                skipSpace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        skipSpace()
        guard index == bytes.count, let version, let type, let messageId, let sender, let nickname, let content, let timestamp else {
            return nil
        }
        var payload = P2PPayload(
            type: type, messageId: messageId, senderNumber: sender, senderNickname: nickname, senderStage: stage ?? nil,
            content: content, timestamp: timestamp, targetNumber: target ?? nil, refId: refId ?? nil,
            automatic: automatic ?? nil, version: version)
        payload.instanceId = instanceId ?? nil
        payload.listenPort = listenPort ?? nil
        payload.capabilities = capabilities ?? nil
        payload.sinceTimestamp = sinceTimestamp ?? nil
        payload.sinceId = sinceId ?? nil
        payload.limit = limit ?? nil
        payload.more = more ?? nil
        return payload
    }

    // MARK: Field conversions (nil: leave it to JSONDecoder)

    private static func optional<T>(_ value: Value, _ convert: (Value) -> T?) -> T?? {
        if case .null = value { return .some(nil) }
        guard let converted = convert(value) else { return nil }
        return .some(converted)
    }

    private static func text(_ value: Value) -> String? {
        if case .string(let v) = value { return v }
        return nil
    }

    private static func int64(_ value: Value) -> Int64? {
        if case .integer(let v) = value { return v }
        return nil
    }

    private static func int(_ value: Value) -> Int? {
        if case .integer(let v) = value { return Int(exactly: v) }
        return nil
    }

    private static func bool(_ value: Value) -> Bool? {
        if case .bool(let v) = value { return v }
        return nil
    }

    private static func strings(_ value: Value) -> [String]? {
        if case .strings(let v) = value { return v }
        return nil
    }

    private static func id(_ value: Value) -> MessageID? {
        if case .string(let v) = value { return MessageID(v) }
        return nil
    }

    private static func number(_ value: Value) -> NodeNumber? {
        if case .integer(let v) = value, v >= 0 { return NodeNumber(rawValue: UInt64(v)) }
        return nil
    }

    // MARK: Tokens

    private mutating func value() -> Value? {
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map(Value.string)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer().map(Value.integer)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "["):
            index += 1
            var items: [String] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return .strings(items) }
            repeat {
                skipSpace()
                guard let item = string() else { return nil }
                items.append(item)
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? .strings(items) : nil
        default: return nil
        }
    }

    /// A JSON string; nil for anything but the plain and escaped forms
    /// JSON allows (raw control characters, bad escapes, lone surrogates).
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    private mutating func escapedString(from start: Int) -> String? {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                              (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    utf8.append(contentsOf: UTF8.encode(unicode)!)
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)` within Int64; fractions, exponents and leading
    /// zeros are left to JSONDecoder.
    private mutating func integer() -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        if negative { return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
