import ChatCore

/// Who this node keeps links to, as a pure value (HyParView, Leitão,
/// Pereira and Rodrigues, DSN 2007). The shell tells it what happened
/// (a beacon heard, a link up or down, a frame, a tick) and carries out
/// the `OverlayAction`s it returns; it reads no clock and opens nothing.
///
/// Below `fullMeshThreshold` known peers it keeps a full mesh, as nodes
/// did before it: every peer heard is dialled. At or above it, an *active
/// view* of about log2(N) + c peers holds the links, and a *passive view*
/// (at most `passiveViewMax`) holds candidates to repair from. On a LAN a
/// beacon heard replaces HyParView's contact node: the first one heard is
/// asked to JOIN, the rest feed the passive view.
///
/// Every table is capped, every request from a peer is budgeted, and at
/// most `inboundMax` active peers got there on their own request, so no
/// peer can take over a view by asking.
public struct Membership: Sendable {
    /// Why a dial was made: what to say once the link is up.
    enum Purpose: Sendable, Hashable {
        case join
        case neighbor(highPriority: Bool, inbound: Bool)
    }

    struct Dial: Sendable, Hashable {
        var purpose: Purpose
        var deadline: Duration
    }

    /// An active peer: since when, and whether it asked (inbound) or we chose it.
    public struct ActivePeer: Sendable, Hashable {
        public var since: Duration
        public var inbound: Bool
    }

    public let me: NodeNumber
    let config: OverlayConfig
    var rng: SeededRandom

    public internal(set) var active: [NodeNumber: ActivePeer] = [:] {
        didSet { viewVersion &+= 1 }
    }
    /// Changes whenever the active view does (`Overlay` syncs broadcast on it).
    public private(set) var viewVersion = 0
    public internal(set) var passive: [NodeNumber] = []
    /// Links the shell reports up.
    var links: Set<NodeNumber> = []
    var dialing: [NodeNumber: Dial] = [:]
    /// Inbound links that have not yet said what they are for.
    var awaiting: [NodeNumber: Duration] = [:]
    /// Peers asked to be neighbours, not yet answered: in a full mesh the
    /// peers their answer names count as known, once per request.
    var neighborAsked: Set<NodeNumber> = []
    var known: [NodeNumber: Duration] = [:]
    /// Peers whose JOIN or NEIGHBOR was refused, until when a fill does not
    /// take them first for their link being up (`fill`). Expired with
    /// `heldOff`.
    var refusedAsks: [NodeNumber: Duration] = [:]
    /// What this node may still pass on to each linked peer (`relay`).
    var relayBudgets: [NodeNumber: TokenBucket] = [:]
    /// Walks and shuffle answers not passed on for want of that budget.
    public internal(set) var relaysDropped = 0
    /// How long a peer heard of counts as known: `knownPeerLifetime`, or
    /// longer where the shell says peers may stay silent longer
    /// (`Overlay.peersMayBeSilent`).
    public internal(set) var knownLifetime: Duration
    /// Peers scored down (a bad signature, a flood, a broken promise, a
    /// laggard): neither dialled nor admitted until the time given.
    var heldOff: [NodeNumber: Duration] = [:]
    /// Peers that said no (a refused NEIGHBOR, a DISCONNECT in a full
    /// mesh): not dialled again until the time given, but admitted if they
    /// ask. Holding them off instead cut small groups in two: each side
    /// refused the other's request for the whole cooldown.
    var declined: [NodeNumber: Duration] = [:]
    var budgets: [NodeNumber: TokenBucket] = [:]
    var scores: [NodeNumber: Double] = [:]
    var lastJoin: [NodeNumber: Duration] = [:]
    /// Joiners whose walk passed here lately: one walk per joiner per window.
    var walked: [NodeNumber: Duration] = [:]
    /// Active peers lost without a DISCONNECT and dialled again, with
    /// when (`redialWindow`; at most `activeViewMax` a window in practice).
    var redialed: [NodeNumber: Duration] = [:]
    var evictions: TokenBucket
    var joinEvictions: TokenBucket
    public internal(set) var isFullMesh = true
    var joined = false
    /// Fill requests refused in a row, and when the next fill may ask
    /// (while the view is at its minimum or above).
    var fillRefusals = 0
    var nextFillAt: Duration = .zero
    var nextShuffle: Duration
    var nextExpiry: Duration

    public init(me: NodeNumber, config: OverlayConfig = OverlayConfig(), seed: UInt64, now: Duration) {
        self.me = me
        self.config = config
        rng = SeededRandom(seed: seed)
        evictions = TokenBucket(capacity: config.evictionBurst, perSecond: config.evictionsPerSecond)
        joinEvictions = TokenBucket(capacity: config.joinEvictionBurst, perSecond: config.joinEvictionsPerSecond)
        nextShuffle = now + config.shuffleInterval
        nextExpiry = now + .seconds(5)
        knownLifetime = config.knownPeerLifetime
    }

    /// The peers the active view holds, sorted (a stable order for replay).
    public var activePeers: [NodeNumber] { active.keys.sorted() }
    public var knownCount: Int { known.count }
    public var target: Int { config.activeTarget(known: known.count + 1) }
    var inboundCount: Int { active.values.reduce(0) { $0 + ($1.inbound ? 1 : 0) } }
    func score(_ peer: NodeNumber) -> Double { scores[peer] ?? 0 }

    // MARK: inputs

    /// A discovery beacon from `peer` (on a LAN: the contact node).
    public mutating func peerHeard(_ peer: NodeNumber, now: Duration) -> [OverlayAction] {
        guard peer != me else { return [] }
        var out: [OverlayAction] = []
        remember(peer, now: now)
        updateMode(now: now, &out)
        guard !isHeldOff(peer, now: now) else { return out }
        let dialable = !isDeclined(peer, now: now)
        if isFullMesh {
            if active[peer] == nil, dialing[peer] == nil, dialable {
                dial(peer, .neighbor(highPriority: false, inbound: false), now: now, &out)
            }
        } else {
            if active[peer] == nil { addPassive(peer) }
            if !joined, dialable, !dialing.values.contains(where: { $0.purpose == .join }) {
                dial(peer, .join, now: now, &out)
            }
        }
        return out
    }

    public mutating func linkUp(_ peer: NodeNumber, now: Duration) -> [OverlayAction] {
        guard peer != me else { return [] }
        var out: [OverlayAction] = []
        links.insert(peer)
        guard let dial = dialing.removeValue(forKey: peer) else {
            if active[peer] == nil { awaiting[peer] = now }
            return out
        }
        switch dial.purpose {
        case .join:
            out.append(.send(.join, to: peer))
            admit(peer, inbound: false, now: now, &out)
            joined = true
        case .neighbor(let high, let inbound):
            out.append(.send(.neighbor(highPriority: high), to: peer))
            neighborAsked.insert(peer)
            admit(peer, inbound: inbound, now: now, &out)  // optimistic; a refusal removes it
        }
        return out
    }

    /// The link is gone, or a dial failed.
    public mutating func linkDown(_ peer: NodeNumber, now: Duration) -> [OverlayAction] {
        var out: [OverlayAction] = []
        links.remove(peer)
        awaiting.removeValue(forKey: peer)
        neighborAsked.remove(peer)
        budgets.removeValue(forKey: peer)
        relayBudgets.removeValue(forKey: peer)
        if let dial = dialing.removeValue(forKey: peer) {
            removePassive(peer)  // unreachable: not a candidate any more
            if dial.purpose == .join { joined = !active.isEmpty }
            // A lost peer's redial failed: now it is replaced.
            if redialed[peer] != nil, active[peer] == nil { fill(now: now, &out) }
        }
        if active.removeValue(forKey: peer) != nil {
            scores.removeValue(forKey: peer)
            // Lost, not left (a DISCONNECT or our own drop removed it
            // first): dialled again once before it is replaced.
            if !isFullMesh, redialed[peer] == nil, redialed.count < 4 * config.activeViewMax,
               !isUndialable(peer, now: now) {
                redialed[peer] = now
                dial(peer, .neighbor(highPriority: false, inbound: false), now: now, &out)
                return out
            }
            if active.isEmpty, !isFullMesh { joined = false }
            fill(now: now, &out)
        }
        return out
    }

    /// Time passes: timeouts, refills, shuffles.
    public mutating func tick(now: Duration) -> [OverlayAction] {
        var out: [OverlayAction] = []
        if now >= nextExpiry {
            nextExpiry = now + .seconds(5)
            expire(now: now)
        }
        updateMode(now: now, &out)
        for (peer, dial) in dialing where dial.deadline <= now {
            dialing.removeValue(forKey: peer)
            removePassive(peer)
            if dial.purpose == .join { joined = !active.isEmpty }
        }
        if !isFullMesh {
            // A link that is no view's, no dial's and not awaited (one whose
            // DISCONNECT or refusal crossed a change of view on the other
            // end) gets the grace of an inbound link, then is closed: 100
            // real nodes kept a few such links for good, up to 14 a node.
            for peer in links where active[peer] == nil && dialing[peer] == nil && awaiting[peer] == nil {
                awaiting[peer] = now
            }
        }
        for (peer, since) in awaiting.sorted(by: { $0.key < $1.key }) where now - since > config.inboundGrace && !isFullMesh {
            awaiting.removeValue(forKey: peer)
            out.append(.close(peer))
        }
        for peer in activePeers where score(peer) < config.dropScore {
            drop(peer, holdOff: true, now: now, &out)
        }
        if isFullMesh { return out }
        if !joined, !dialing.values.contains(where: { $0.purpose == .join }) {
            if let contact = rng.pick(passive.filter { !isUndialable($0, now: now) }) {
                dial(contact, .join, now: now, &out)
            }
        }
        fill(now: now, &out)
        if now >= nextShuffle {
            nextShuffle = now + config.shuffleInterval
            replaceLaggard(now: now, &out)
            startShuffle(&out)
        }
        return out
    }

    /// Per-peer budget for membership frames: false (and a lower score) past it.
    mutating func charge(_ peer: NodeNumber, now: Duration) -> Bool {
        var bucket = budgets[peer] ?? TokenBucket(capacity: config.controlBurst, perSecond: config.controlPerSecond)
        let ok = bucket.take(at: now)
        budgets[peer] = bucket
        if !ok { note(peer, .overBudget) }
        return ok
    }

    mutating func note(_ peer: NodeNumber, _ note: PeerNote) {
        guard active[peer] != nil else { return }
        scores[peer, default: 0] += note.weight
    }
}
