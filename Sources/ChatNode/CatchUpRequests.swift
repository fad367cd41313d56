import ChatCore

/// The history requests this node sent and not yet saw answered, per peer,
/// so a `historyReply` that answers none of them (one nobody asked for,
/// planting messages) is refused.
///
/// Bounded: at most `perPeer` requests per peer (the oldest is forgotten
/// first; catch-up has one request in flight per peer, so a few suffice),
/// and a peer's entries go when its link drops, since a reply can only come
/// back on the link the request left by.
struct CatchUpRequests: Sendable {
    static let perPeer = 4
    private var pending: [NodeNumber: [MessageID]] = [:]

    mutating func sent(_ request: MessageID, to peer: NodeNumber) {
        var ids = pending[peer, default: []]
        ids.append(request)
        if ids.count > Self.perPeer { ids.removeFirst(ids.count - Self.perPeer) }
        pending[peer] = ids
    }

    /// Whether `reply` answers a request sent to `peer`; if so, the request
    /// is answered and forgotten (a second reply to it is unsolicited).
    mutating func answer(_ reply: P2PPayload, from peer: NodeNumber) -> Bool {
        guard let refId = reply.refId, var ids = pending[peer], let index = ids.firstIndex(of: refId) else { return false }
        ids.remove(at: index)
        pending[peer] = ids.isEmpty ? nil : ids
        return true
    }

    mutating func linkLost(_ peer: NodeNumber) { pending[peer] = nil }

    func outstanding(to peer: NodeNumber) -> Int { pending[peer]?.count ?? 0 }
}
