import ChatCore
import Foundation

/// Writes a `P2PPayload` as its JSON by hand: the object `JSONEncoder`
/// writes for it (here with keys in declaration order; absent optionals
/// left out; JSONEncoder's string escapes), in a fraction of the time: every frame
/// a node sends is encoded once, and Foundation's encoder was the largest
/// cost of a send after the signature. Frames with nested objects (a
/// history reply's `messages`, a `catchUp` cursor) are rare and big, and
/// go through `JSONEncoder` (`encode` returns nil for them). Its writers
/// serve the overlay's frames too (`OverlayFrameEncoder`), which embed a
/// payload.
package enum P2PFrameEncoder {
    /// The frame's JSON without the "\n" `P2PFrameCodec.encode` adds, or nil
    /// if it needs `JSONEncoder`. `escapingSlashes`: "/" as "\/", as
    /// JSONEncoder writes it by default (false: its `.withoutEscapingSlashes`).
    package static func encode(_ payload: P2PPayload, escapingSlashes: Bool = true) -> [UInt8]? {
        var out: [UInt8] = []
        return encode(payload, into: &out, escapingSlashes: escapingSlashes) ? out : nil
    }

    /// As `encode`, appended to `out`; false (and `out` untouched) if it needs `JSONEncoder`.
    package static func encode(_ payload: P2PPayload, into out: inout [UInt8], escapingSlashes: Bool = true) -> Bool {
        let slashes = escapingSlashes
        func string(_ text: String, _ out: inout [UInt8]) { Self.string(text, &out, escapingSlashes: slashes) }
        guard payload.messages == nil, payload.catchUp == nil else { return false }
        out.reserveCapacity(out.count + 160 + payload.content.utf8.count + (payload.signature == nil ? 0 : 150))
        out.append(UInt8(ascii: "{"))
        field("version", &out, first: true); integer(payload.version, &out)
        field("type", &out); string(payload.type.name, &out)
        field("messageId", &out); messageID(payload.messageId, &out)
        field("senderNumber", &out); integer(payload.senderNumber.rawValue, &out)
        field("senderNickname", &out); string(payload.senderNickname, &out)
        if let stage = payload.senderStage { field("senderStage", &out); string(stage, &out) }
        field("content", &out); string(payload.content, &out)
        field("timestamp", &out); integer(payload.timestamp, &out)
        if let target = payload.targetNumber { field("targetNumber", &out); integer(target.rawValue, &out) }
        if let refId = payload.refId { field("refId", &out); messageID(refId, &out) }
        if let automatic = payload.automatic { field("automatic", &out); out.append(contentsOf: automatic ? Array("true".utf8) : Array("false".utf8)) }
        if let instanceId = payload.instanceId { field("instanceId", &out); string(instanceId, &out) }
        if let port = payload.listenPort { field("listenPort", &out); integer(port, &out) }
        if let capabilities = payload.capabilities {
            field("capabilities", &out)
            out.append(UInt8(ascii: "["))
            for (index, name) in capabilities.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(name, &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if let since = payload.sinceTimestamp { field("sinceTimestamp", &out); integer(since, &out) }
        if let sinceId = payload.sinceId { field("sinceId", &out); messageID(sinceId, &out) }
        if let limit = payload.limit { field("limit", &out); integer(limit, &out) }
        if let more = payload.more { field("more", &out); out.append(contentsOf: more ? Array("true".utf8) : Array("false".utf8)) }
        if let signature = payload.signature { field("signature", &out); string(signature, &out) }
        if let authorKey = payload.authorKey { field("authorKey", &out); string(authorKey, &out) }
        out.append(UInt8(ascii: "}"))
        return true
    }

    package static func field(_ name: StaticString, _ out: inout [UInt8], first: Bool = false) {
        if !first { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    package static func integer<T: BinaryInteger>(_ value: T, _ out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Lower-case 8-4-4-4-12 hex, as `MessageID.description`.
    package static func messageID(_ id: MessageID, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: id.uuid.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8, slashes: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (slashes && byte == UInt8(ascii: "/"))
    }

    /// A JSON string with JSONEncoder's escapes.
    package static func string(_ text: String, _ out: inout [UInt8], escapingSlashes: Bool = true) {
        out.append(UInt8(ascii: "\""))
        // Most text needs no escape: copied in one go.
        if !text.utf8.contains(where: { needsEscape($0, slashes: escapingSlashes) }) {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "/") where escapingSlashes: out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
