import ChatCore

/// How public messages cross the overlay, as a pure value (Plumtree,
/// Leitão, Pereira and Rodrigues, SRDS 2007). Each message goes eagerly
/// (whole) to the *eager* neighbours and as an id only (IHAVE, batched
/// every `ihaveInterval`) to the *lazy* ones. A duplicate moves its sender
/// to lazy (PRUNE), so the eager links settle into a spanning tree; an id
/// announced but not received within `graftTimeout` is pulled (GRAFT),
/// which also makes that link eager again: the tree repairs itself around
/// a crashed or silent node.
///
/// Nothing is relayed before the shell's verification says the author's
/// signature holds; duplicates are never verified twice. Every table is
/// capped and IHAVE and GRAFT ids are budgeted per peer.
public struct Broadcast: Sendable {
    let config: OverlayConfig
    public internal(set) var eager: Set<NodeNumber> = []
    public internal(set) var lazy: Set<NodeNumber> = []
    var seen: RecentIDs
    var cache: GossipCache
    var missing: MissingIDs
    var pendingIHave: [NodeNumber: [MessageID]] = [:]
    var flushAt: Duration?
    var ihaveBudgets: [NodeNumber: TokenBucket] = [:]
    var graftBudgets: [NodeNumber: TokenBucket] = [:]
    /// Score notes for the membership, drained by `Overlay`.
    var notes: [(NodeNumber, PeerNote)] = []
    var authors: AuthorBudgets
    /// When each neighbour's last broken promise was noted.
    var lastBroken: [NodeNumber: Duration] = [:]
    /// Gossiped messages dropped past their author's budget.
    public internal(set) var overBudget = 0
    /// How far pushed copies lag their announcements, for `graftWait`.
    var lag = PushLag()
    /// The smoothed lag (nil: no sample yet).
    public var pushLag: Duration? { lag.mean }

    public init(config: OverlayConfig = OverlayConfig()) {
        self.config = config
        seen = RecentIDs(capacity: config.recentIDs)
        cache = GossipCache(capacity: config.cachedMessages)
        missing = MissingIDs(capacity: config.missingMax)
        authors = AuthorBudgets(burst: config.authorBurst, perSecond: config.authorPerSecond, capacity: config.authorsTracked)
    }

    public var neighbors: Set<NodeNumber> { eager.union(lazy) }
    public func isNeighbor(_ peer: NodeNumber) -> Bool { eager.contains(peer) || lazy.contains(peer) }
    public func hasSeen(_ id: MessageID) -> Bool { seen.contains(id) }

    /// When `tick` next has something to do, if anything.
    public var nextDeadline: Duration? {
        let graft = missing.nextDeadline
        switch (flushAt, graft) {
        case let (flush?, graft?): return min(flush, graft)
        case let (flush, graft): return flush ?? graft
        }
    }

    /// A new neighbour starts eager (Plumtree's initial state: flooding,
    /// which the first duplicates prune); with `bounded` (above the
    /// threshold) only while fewer than `eagerInitial` are, else lazy. In a
    /// full mesh nobody relays, so the author's push must reach everyone.
    ///
    /// With `bounded`, it is also told the newest cached ids (one IHAVE,
    /// GossipSub's history gossip): a message published while the views
    /// did not yet join up, or before this link was in them, never reaches
    /// the other side by push, and the link that joins them would
    /// otherwise carry only what comes after it. The peer grafts what it
    /// lacks; what it has costs it nothing but the ids.
    mutating func neighborUp(_ peer: NodeNumber, bounded: Bool, now: Duration) {
        if !config.lazyPush || !bounded || eager.count < config.eagerInitial {
            lazy.remove(peer)
            eager.insert(peer)
        } else {
            lazy.insert(peer)
        }
        guard bounded, config.lazyPush else { return }
        let recent = recentIDs()
        guard !recent.isEmpty else { return }
        pendingIHave[peer, default: []].append(contentsOf: recent)
        scheduleFlush(now: now)
    }

    /// History gossip tells a new neighbour at most this many ids of each
    /// author first, then the newest of the rest.
    static let announcedPerAuthor = 4

    /// The cached ids a new neighbour is told, oldest first: the newest
    /// `announcedPerAuthor` of each author, newest authors first, then the
    /// newest others, `idsPerFrame` in all. Under a flood the newest 64 ids
    /// were all the flood's, and a joiner's message published before its
    /// views joined up never crossed the new link by push.
    func recentIDs() -> [MessageID] {
        let limit = config.idsPerFrame
        let kept = cache.idsOldestFirst
        var chosen = Set<MessageID>()
        var perAuthor: [NodeNumber: Int] = [:]
        for id in kept.reversed() where chosen.count < limit {
            guard let author = cache[id]?.message.senderNumber, perAuthor[author, default: 0] < Self.announcedPerAuthor else { continue }
            perAuthor[author, default: 0] += 1
            chosen.insert(id)
        }
        for id in kept.reversed() where chosen.count < limit { chosen.insert(id) }
        return kept.filter { chosen.contains($0) }
    }

    /// Leaving a full mesh: at most `eagerInitial` eager neighbours stay
    /// so, the first by `rank`; the rest go lazy, as if new.
    mutating func limitEager(by rank: (NodeNumber) -> UInt64) {
        guard config.lazyPush, eager.count > config.eagerInitial else { return }
        for peer in eager.sorted(by: { rank($0) < rank($1) }).dropFirst(config.eagerInitial) {
            eager.remove(peer)
            lazy.insert(peer)
        }
    }

    mutating func neighborDown(_ peer: NodeNumber) {
        eager.remove(peer)
        lazy.remove(peer)
        pendingIHave.removeValue(forKey: peer)
        ihaveBudgets.removeValue(forKey: peer)
        graftBudgets.removeValue(forKey: peer)
        lastBroken.removeValue(forKey: peer)
    }

    /// This node's own message: delivered (by the caller) and pushed.
    public mutating func publish(_ message: P2PPayload, now: Duration) -> [OverlayAction] {
        var out: [OverlayAction] = []
        let gossip = GossipMessage(hops: 1, message: message)
        guard seen.insert(gossip.id) else { return out }
        cache.keep(gossip)
        relay(gossip, except: nil, now: now, &out)
        return out
    }

    /// Messages this node stored some other way (a catch-up), signatures
    /// checked: every neighbour is told their ids (IHAVE) and grafts what
    /// it lacks, so a gap closed here is closed beside it too. Ids only,
    /// at most `ihaveBurst / 4` waiting per neighbour (a backlog is not
    /// pushed whole, and stays within what a neighbour takes); what is
    /// left out a neighbour's own catch-up covers.
    public mutating func announce(_ messages: [P2PPayload], now: Duration) -> [OverlayAction] {
        guard config.lazyPush else { return [] }
        let room = Int(config.ihaveBurst / 4)
        for message in messages {
            let gossip = GossipMessage(hops: 1, message: message)
            guard seen.insert(gossip.id) else { continue }
            cache.keep(gossip)
            missing.remove(gossip.id)
            for peer in neighbors where pendingIHave[peer, default: []].count < room {
                pendingIHave[peer, default: []].append(gossip.id)
            }
        }
        scheduleFlush(now: now)
        return []
    }

    /// `id` is held by this node already (its own message): not awaited,
    /// and a copy of it is a duplicate.
    mutating func hold(_ id: MessageID) {
        seen.insert(id)
        missing.remove(id)
    }

    /// A gossip frame from a neighbour. `verify` is asked only for an id
    /// not seen before: the author's signature (the simulator's flag).
    public mutating func receive(_ gossip: GossipMessage, from peer: NodeNumber, now: Duration, relay: Bool = true,
                                 verify: (P2PPayload) -> Bool) -> [OverlayAction] {
        guard isNeighbor(peer) else { return [] }
        var out: [OverlayAction] = []
        if seen.contains(gossip.id) {
            forgetPending([gossip.id], for: peer)
            // A lazy peer that pushes holds this node eager (a link that
            // started eager at one end only, `eagerInitial`): pruned too,
            // or it pushes copies for as long as the link lasts.
            if config.lazyPush, relay {
                eager.remove(peer)
                lazy.insert(peer)
                out.append(.send(.prune, to: peer))
            }
            return out
        }
        let author = gossip.message.senderNumber
        // Past its author's budget: dropped before the (costly) signature
        // check, not stored, not relayed, not marked seen (a GRAFT may
        // fetch it later). Not awaited either: the relay that announced it
        // kept its promise, this node declined it. Only the author pushing
        // its own flood is scored down; a relay passes on no more of it
        // than its own budget lets through.
        guard authors.allows(author, now: now) else {
            overBudget += 1
            missing.remove(gossip.id)
            if author == peer { notes.append((peer, .overBudget)) }
            return out
        }
        guard gossip.hops >= 1, gossip.hops <= 255, verify(gossip.message) else {
            notes.append((peer, .invalidMessage))
            return out
        }
        _ = authors.charge(author, now: now)
        seen.insert(gossip.id)
        var next = gossip
        next.hops = min(255, gossip.hops + 1)
        cache.keep(next)  // as this node sends it on (a GRAFT's answer too)
        // Those that announced it hold it: no IHAVE back to them.
        let entry = missing.remove(gossip.id)
        let announcers = entry?.announcers ?? []
        if let entry, entry.grafted == nil { lag.note(now - entry.announcedAt) }
        if lazy.contains(peer) {
            lazy.remove(peer)
            eager.insert(peer)
        }
        notes.append((peer, .firstDelivery))
        out.append(.deliver(gossip, from: peer))
        guard relay else { return out }
        self.relay(next, except: peer, holders: announcers, now: now, &out)
        return out
    }

    /// IHAVE, GRAFT or PRUNE from a neighbour.
    public mutating func receive(control frame: OverlayFrame, from peer: NodeNumber, now: Duration) -> [OverlayAction] {
        guard isNeighbor(peer) else { return [] }
        var out: [OverlayAction] = []
        switch frame {
        case .ihave(let ids):
            guard Self.take(&ihaveBudgets, peer, Double(ids.count), burst: config.ihaveBurst, rate: config.ihavePerSecond, now: now) else {
                notes.append((peer, .overBudget))
                break
            }
            forgetPending(ids, for: peer)
            for id in ids.prefix(config.idsPerFrame) where !seen.contains(id) {
                missing.announce(id, by: peer, deadline: now + graftWait, now: now, announcersMax: config.announcersPerID)
            }
        case .graft(let ids):
            guard Self.take(&graftBudgets, peer, Double(ids.count), burst: config.graftBurst, rate: config.graftPerSecond, now: now) else {
                notes.append((peer, .overBudget))
                break
            }
            lazy.remove(peer)
            eager.insert(peer)
            for id in ids.prefix(config.idsPerFrame) {
                if let gossip = cache[id] { out.append(.send(.gossip(gossip), to: peer)) }
            }
        case .prune:
            if eager.remove(peer) != nil { lazy.insert(peer) }
        default:
            break
        }
        return out
    }

    /// Sends the batched IHAVEs that are due and grafts what is overdue.
    public mutating func tick(now: Duration) -> [OverlayAction] {
        var out: [OverlayAction] = []
        if let flushAt, now >= flushAt {
            self.flushAt = nil
            for peer in pendingIHave.keys.sorted() {
                let ids = pendingIHave[peer]!
                for start in stride(from: 0, to: ids.count, by: config.idsPerFrame) {
                    out.append(.send(.ihave(Array(ids[start..<min(ids.count, start + config.idsPerFrame)])), to: peer))
                }
            }
            pendingIHave.removeAll(keepingCapacity: true)
        }
        var grafts: [NodeNumber: [MessageID]] = [:]
        for id in missing.ids {
            guard var entry = missing[id], entry.deadline <= now else { continue }
            if let promised = entry.grafted {
                notePromiseBroken(by: promised, now: now)
            } else {
                // The copy lags at least this much: a wait that only
                // learned from copies in time would never grow.
                lag.note(now - entry.announcedAt)
            }
            entry.announcers.removeAll { !isNeighbor($0) }
            guard !entry.announcers.isEmpty else {
                missing.remove(id)
                continue
            }
            let peer = entry.announcers.removeFirst()
            lazy.remove(peer)
            eager.insert(peer)
            grafts[peer, default: []].append(id)
            entry.grafted = peer
            entry.deadline = now + config.graftRetry
            missing[id] = entry
        }
        // At most `idsPerFrame` ids a frame, as IHAVEs: a longer GRAFT is
        // malformed to its receiver (a flood left hundreds overdue at once).
        for peer in grafts.keys.sorted() {
            let ids = grafts[peer]!
            for start in stride(from: 0, to: ids.count, by: config.idsPerFrame) {
                out.append(.send(.graft(Array(ids[start..<min(ids.count, start + config.idsPerFrame)])), to: peer))
            }
        }
        return out
    }

    /// How long an announced id waits for its pushed copy before it is
    /// grafted (`PushLag.graftWait`).
    var graftWait: Duration { lag.graftWait(floor: config.graftTimeout, ceiling: config.graftTimeoutMax) }

    /// At most one broken promise per peer a second, however many ids it
    /// left unanswered: under a flood an honest relay's cache
    /// (`cachedMessages`) turns over before a late GRAFT arrives, and a
    /// note for every id held good relays off (a sybil flood cut lan-test's
    /// honest nodes apart that way). A censor still sinks in seconds.
    private mutating func notePromiseBroken(by peer: NodeNumber, now: Duration) {
        if let last = lastBroken[peer], now - last < .seconds(1) { return }
        lastBroken[peer] = now
        notes.append((peer, .brokenPromise))
    }

    /// A neighbour that announced or sent these ids holds them: an IHAVE
    /// of them still waiting for it would tell it nothing. In a wave each
    /// pair of lazy neighbours that both got a message told each other;
    /// now whichever flushes second mostly has nothing left to say.
    private mutating func forgetPending(_ ids: [MessageID], for peer: NodeNumber) {
        guard pendingIHave[peer] != nil else { return }
        // In place: a copy taken out of the table would copy the queue.
        if ids.count == 1 {
            pendingIHave[peer]!.removeAll { $0 == ids[0] }
        } else {
            let held = Set(ids)
            pendingIHave[peer]!.removeAll { held.contains($0) }
        }
        if pendingIHave[peer]!.isEmpty { pendingIHave.removeValue(forKey: peer) }
    }

    /// Waiting IHAVEs go in one batch `ihaveInterval` after the first.
    private mutating func scheduleFlush(now: Duration) {
        if !pendingIHave.isEmpty, flushAt == nil { flushAt = now + config.ihaveInterval }
    }

    private mutating func relay(_ gossip: GossipMessage, except sender: NodeNumber?, holders: [NodeNumber] = [],
                                now: Duration, _ out: inout [OverlayAction]) {
        for peer in eager.sorted() where peer != sender { out.append(.send(.gossip(gossip), to: peer)) }
        guard config.lazyPush else { return }
        for peer in lazy where peer != sender && !holders.contains(peer) {
            pendingIHave[peer, default: []].append(gossip.id)
        }
        scheduleFlush(now: now)
    }

    private static func take(_ budgets: inout [NodeNumber: TokenBucket], _ peer: NodeNumber, _ cost: Double,
                               burst: Double, rate: Double, now: Duration) -> Bool {
        var bucket = budgets[peer] ?? TokenBucket(capacity: burst, perSecond: rate)
        let ok = bucket.take(cost, at: now)
        budgets[peer] = bucket
        return ok
    }
}
