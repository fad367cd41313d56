import ChatCore

/// The frames of the overlay (capability `overlay`, docs/PROTOCOL.md,
/// "Overlay"): HyParView's membership and Plumtree's broadcast. The wire
/// form is `OverlayFrameCodec`'s.
public enum OverlayFrame: Sendable, Hashable {
    /// Membership: take me into your active view and introduce me.
    case join
    /// A JOIN's random walk: `newNode` joined; `ttl` hops left.
    case forwardJoin(newNode: NodeNumber, ttl: Int)
    /// Take me into your active view. High priority: I have no neighbour.
    case neighbor(highPriority: Bool)
    case neighborReply(accepted: Bool)
    /// You left my active view (you stay in my passive one).
    case disconnect
    /// A shuffle's random walk: `origin`'s sample of peers.
    case shuffle(origin: NodeNumber, ttl: Int, peers: [NodeNumber])
    case shuffleReply(peers: [NodeNumber])
    /// Broadcast: a message pushed eagerly (boxed: a frame is otherwise a few words).
    indirect case gossip(GossipMessage)
    /// Broadcast: ids I have (lazy push).
    case ihave([MessageID])
    /// Broadcast: send me these, and push to me eagerly from now on.
    case graft([MessageID])
    /// Broadcast: stop pushing to me eagerly (I got it twice).
    case prune
    /// Sealed relay: `origin` asks `target` for its recipient card (flooded).
    case cardQuery(RelayHeader, origin: NodeNumber, target: NodeNumber)
    /// Sealed relay: a recipient card, flooded back to the node that asked.
    case card(RelayHeader, to: NodeNumber, card: [UInt8])
    /// Sealed relay: a direct frame sealed to its recipient, flooded; only
    /// the recipient can open it (`SealedEnvelope`).
    case sealed(RelayHeader, envelope: [UInt8])

    /// Gossip, IHAVE, GRAFT and PRUNE belong to `Broadcast`; the rest to `Membership`.
    public var isBroadcast: Bool {
        switch self {
        case .gossip, .ihave, .graft, .prune: true
        default: false
        }
    }

    /// Card queries, cards and sealed envelopes belong to `SealedRelay`.
    public var isRelay: Bool {
        switch self {
        case .cardQuery, .card, .sealed: true
        default: false
        }
    }
}

/// What every flooded relay frame carries: an id to drop repeats by and
/// the hops it may still travel.
public struct RelayHeader: Sendable, Hashable {
    public var id: MessageID
    /// Hops left: 0 is delivered but not forwarded.
    public var ttl: Int

    public init(id: MessageID, ttl: Int) {
        self.id = id
        self.ttl = ttl
    }
}

/// A public message as the overlay relays it: the author's signed frame,
/// unchanged, and the links it has crossed.
public struct GossipMessage: Sendable, Hashable {
    /// Links crossed: 1 when the author sends it.
    public var hops: Int
    /// The author's signed `publicMessage` frame, relayed as it was signed.
    public var message: P2PPayload

    public init(hops: Int, message: P2PPayload) {
        self.hops = hops
        self.message = message
    }

    public var id: MessageID { message.messageId }
}
