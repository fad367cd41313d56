import ChatCore
import ChatWire

/// Writes an overlay frame's `Wire` by hand: the object `JSONEncoder`
/// writes for it (here with keys in declaration order; absent optionals
/// left out, slashes unescaped), with `P2PFrameEncoder`'s writers. Every IHAVE and
/// every relayed message is encoded once per neighbour, and Foundation's
/// encoder was about 5% of all the CPU of 300 nodes passing messages
/// (issue 29). `OverlayFrameEncoderTests` hold it to `JSONEncoder`'s object.
enum OverlayFrameEncoder {
    /// The frame's JSON, or nil if its embedded message needs `JSONEncoder`.
    static func encode(_ wire: OverlayFrameCodec.Wire) -> [UInt8]? {
        typealias W = P2PFrameEncoder
        var out: [UInt8] = []
        out.reserveCapacity(200 + (wire.message.map { 400 + $0.content.utf8.count } ?? 0) + 40 * (wire.ids?.count ?? 0)
                            + (wire.envelope?.utf8.count ?? 0))
        func string(_ text: String) { W.string(text, &out, escapingSlashes: false) }
        func number(_ value: NodeNumber) { W.integer(value.rawValue, &out) }
        func list<T>(_ items: [T], _ write: (T) -> Void) {
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "{"))
        W.field("version", &out, first: true); W.integer(wire.version, &out)
        W.field("type", &out); string(wire.type)
        W.field("messageId", &out); W.messageID(wire.messageId, &out)
        W.field("senderNumber", &out); number(wire.senderNumber)
        W.field("senderNickname", &out); string(wire.senderNickname)
        W.field("content", &out); string(wire.content)
        W.field("timestamp", &out); W.integer(wire.timestamp, &out)
        if let newNode = wire.newNode { W.field("newNode", &out); number(newNode) }
        if let ttl = wire.ttl { W.field("ttl", &out); W.integer(ttl, &out) }
        if let priority = wire.priority { W.field("priority", &out); string(priority) }
        if let accepted = wire.accepted { W.field("accepted", &out); out.append(contentsOf: (accepted ? "true" : "false").utf8) }
        if let origin = wire.origin { W.field("origin", &out); number(origin) }
        if let peers = wire.peers { W.field("peers", &out); list(peers) { number($0) } }
        if let hops = wire.hops { W.field("hops", &out); W.integer(hops, &out) }
        if let message = wire.message {
            W.field("message", &out)
            guard P2PFrameEncoder.encode(message, into: &out, escapingSlashes: false) else { return nil }
        }
        if let ids = wire.ids { W.field("ids", &out); list(ids) { W.messageID($0, &out) } }
        if let relayId = wire.relayId { W.field("relayId", &out); W.messageID(relayId, &out) }
        if let target = wire.target { W.field("target", &out); number(target) }
        if let card = wire.card { W.field("card", &out); string(card) }
        if let envelope = wire.envelope { W.field("envelope", &out); string(envelope) }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
