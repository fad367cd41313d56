/// Which conversation a message belongs to: the one public room everyone on
/// the LAN shares, or a 1:1 conversation with one peer.
///
/// Its string form (`public`, `dm:<node number>`) is what the store keys
/// rooms by and what `--json` shows.
public enum RoomID: Hashable, Sendable, Codable, CustomStringConvertible {
    case publicRoom
    case direct(NodeNumber)

    public init?(_ string: String) {
        if string == "public" {
            self = .publicRoom
        } else if string.hasPrefix("dm:"), let raw = UInt64(string.dropFirst(3)), let peer = NodeNumber(rawValue: raw),
                  string.utf8.count == 3 + peer.description.utf8.count {
            // Only the canonical digits: "dm:+5" or "dm:05" would be a second
            // key for the room "dm:5".
            self = .direct(peer)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .publicRoom: "public"
        case .direct(let peer): "dm:\(peer.rawValue)"
        }
    }

    public var peer: NodeNumber? {
        if case .direct(let peer) = self { return peer }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let room = RoomID(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a room id: \(string.prefix(40))")
        }
        self = room
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
