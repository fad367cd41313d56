/// The peers the node knows, and how people name them: by nickname, with a
/// `#tag` (last four hex digits of the node number) when two peers share a
/// nickname, so `/dm bob` never guesses. Names are compared by
/// `LookAlike.key` (NFKC, case folded, then UTS #39's skeleton): `alice`,
/// `ａｌｉｃｅ` and Cyrillic `аlice` clash and all get their tag. A name
/// that mixes scripts always shows its tag.
public struct PeerDirectory: Sendable {
    public private(set) var peers: [NodeNumber: PeerInfo] = [:]
    /// Each known peer's clash key, computed once per nickname.
    private var keys: [NodeNumber: String] = [:]

    public init() {}

    public subscript(number: NodeNumber) -> PeerInfo? { peers[number] }

    /// Adds or replaces a peer; returns the previous entry.
    @discardableResult
    public mutating func upsert(_ peer: PeerInfo) -> PeerInfo? {
        if peers[peer.number]?.nickname != peer.nickname { keys[peer.number] = LookAlike.key(peer.nickname) }
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
    /// known peer (or `localIdentity`) has a nickname with the same key, or
    /// when the nickname mixes scripts.
    public func displayName(for number: NodeNumber, nickname: String, localIdentity: NodeIdentity? = nil) -> String {
        let key = keys[number].flatMap { peers[number]?.nickname == nickname ? $0 : nil } ?? LookAlike.key(nickname)
        var shared = keys.contains { $0.key != number && $0.value == key }
        if let me = localIdentity, me.number != number, LookAlike.key(me.nickname) == key { shared = true }
        return shared || LookAlike.isMixedScript(nickname) ? "\(nickname)#\(number.shortTag)" : nickname
    }

    /// Another peer, or the local identity, whose nickname looks like
    /// `number`'s without being the same name (equal keys, different clash
    /// keys): the one a person might take it for. Nil when none.
    public func looksLike(_ number: NodeNumber, localIdentity: NodeIdentity? = nil) -> String? {
        guard let peer = peers[number], let key = keys[number] else { return nil }
        let clash = NodeName.clashKey(peer.nickname)
        if let me = localIdentity, me.number != number, LookAlike.key(me.nickname) == key,
           NodeName.clashKey(me.nickname) != clash {
            return me.nickname
        }
        let other = keys.first { $0.key != number && $0.value == key && peers[$0.key].map { NodeName.clashKey($0.nickname) } != clash }
        return other.flatMap { peers[$0.key]?.nickname }
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
        let key = name.isEmpty ? "" : LookAlike.key(String(name))
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
