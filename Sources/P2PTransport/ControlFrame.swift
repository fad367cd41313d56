import ChatCore
import ChatWire
import Foundation

/// The link's own frames (hello, ping, pong, leave) written straight to
/// JSON. `JSONEncoder` took ~20 µs a frame, and every link set-up writes
/// four (both hellos, the acceptance ping and its pong): 5% of a 50-node
/// mesh's CPU. The bytes are JSON with the fields `P2PFrameCodec.encode`
/// writes for such a frame, in its order (PROTOCOL.md section 4), ending
/// in a newline; tests decode both and compare. Any frame with a field a
/// control frame does not carry goes through `P2PFrameCodec.encode`.
enum ControlFrame {
    static func encode(_ payload: P2PPayload) -> Data {
        guard isControl(payload) else { return P2PFrameCodec.encode(payload) }
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out += #"{"version":"#.utf8
        out += String(payload.version).utf8
        out += #","type":"#.utf8
        string(payload.type.name, into: &out)
        out += #","messageId":"#.utf8
        string(payload.messageId.description, into: &out)
        out += #","senderNumber":"#.utf8
        out += String(payload.senderNumber.rawValue).utf8
        out += #","senderNickname":"#.utf8
        string(payload.senderNickname, into: &out)
        if let stage = payload.senderStage {
            out += #","senderStage":"#.utf8
            string(stage, into: &out)
        }
        out += #","content":"#.utf8
        string(payload.content, into: &out)
        out += #","timestamp":"#.utf8
        out += String(payload.timestamp).utf8
        if let refId = payload.refId {
            out += #","refId":"#.utf8
            string(refId.description, into: &out)
        }
        if let instanceId = payload.instanceId {
            out += #","instanceId":"#.utf8
            string(instanceId, into: &out)
        }
        if let listenPort = payload.listenPort {
            out += #","listenPort":"#.utf8
            out += String(listenPort).utf8
        }
        if let capabilities = payload.capabilities {
            out += #","capabilities":["#.utf8
            for (index, capability) in capabilities.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(capability, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out += "}\n".utf8
        return Data(out)
    }

    /// A control type with none of the fields only other frames carry.
    static func isControl(_ payload: P2PPayload) -> Bool {
        switch payload.type {
        case .hello, .ping, .pong, .leave: break
        default: return false
        }
        return payload.targetNumber == nil && payload.automatic == nil && payload.sinceTimestamp == nil
            && payload.sinceId == nil && payload.limit == nil && payload.messages == nil && payload.more == nil
            && payload.catchUp == nil && payload.signature == nil && payload.authorKey == nil
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`,
    /// everything else as its UTF-8 bytes.
    private static func string(_ text: String, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                out += #"\u00"#.utf8
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
