/// The peers the node knows, and how people name them: by nickname, with a
/// `#tag` (last four hex digits of the node number) when two peers share a
/// nickname, so `/dm bob` never guesses. Names are compared by
/// `NodeName.clashKey` (NFKC, case folded): `alice` and `ａｌｉｃｅ` clash and
/// both get their tag.
public struct PeerDirectory: Sendable {
    public private(set) var peers: [NodeNumber: PeerInfo] = [:]
    /// Each known peer's clash key, computed once per nickname.
    private var keys: [NodeNumber: String] = [:]

    public init() {}

    public subscript(number: NodeNumber) -> PeerInfo? { peers[number] }

    /// Adds or replaces a peer; returns the previous entry.
    @discardableResult
    public mutating func upsert(_ peer: PeerInfo) -> PeerInfo? {
        if peers[peer.number]?.nickname != peer.nickname { keys[peer.number] = NodeName.clashKey(peer.nickname) }
        return peers.updateValue(peer, forKey: peer.number)
    }

    @discardableResult
    public mutating func remove(_ number: NodeNumber) -> PeerInfo? {
        keys[number] = nil
        return peers.removeValue(forKey: number)
    }

    /// Peers ordered by nickname, then number: a stable listing.
    public var sorted: [PeerInfo] {
        peers.values.sorted { lhs, rhs in
            let l = lhs.nickname.lowercased(), r = rhs.nickname.lowercased()
            return l != r ? l < r : lhs.number < rhs.number
        }
    }

    /// The name to show for `number`: its nickname, plus `#tag` when another
    /// known peer (or `localIdentity`) has a nickname with the same clash key.
    public func displayName(for number: NodeNumber, nickname: String, localIdentity: NodeIdentity? = nil) -> String {
        let key = NodeName.clashKey(nickname)
        var shared = keys.contains { $0.key != number && $0.value == key }
        if let me = localIdentity, me.number != number, NodeName.clashKey(me.nickname) == key { shared = true }
        return shared ? "\(nickname)#\(number.shortTag)" : nickname
    }

    /// Finds the one peer `query` names: a nickname (compared by clash key,
    /// so any case or width), `name#tag`, `#tag`, or a node number.
    public func resolve(_ query: String) throws(PeerLookupError) -> PeerInfo {
        let query = query.trimmingWhitespace()
        if query.isEmpty { throw .notFound(query) }
        if let raw = UInt64(query), let number = NodeNumber(rawValue: raw), let peer = peers[number] {
            return peer
        }
        var name = Substring(query)
        var tag: Substring?
        if let hash = query.lastIndex(of: "#") {
            name = query[..<hash]
            tag = query[query.index(after: hash)...]
        }
        let key = name.isEmpty ? "" : NodeName.clashKey(String(name))
        let matches = peers.values.filter { peer in
            (key.isEmpty || keys[peer.number] == key)
                && (tag.map { peer.number.shortTag == $0.lowercased() } ?? true)
        }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw .notFound(query)
        default:
            let names = matches.sorted { $0.number < $1.number }.map { "\($0.nickname)#\($0.number.shortTag)" }
            throw .ambiguous(query, candidates: names)
        }
    }
}

/// Why a peer name did not resolve to exactly one peer.
public enum PeerLookupError: Error, Hashable, Sendable, CustomStringConvertible {
    case notFound(String)
    case ambiguous(String, candidates: [String])

    public var description: String {
        switch self {
        case .notFound(let query): "no peer named \(query)"
        case .ambiguous(let query, let candidates):
            "\(query) is ambiguous: \(candidates.joined(separator: ", ")); add the #tag"
        }
    }
}
