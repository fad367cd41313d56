import ChatCore

extension Membership {
    mutating func remember(_ peer: NodeNumber, now: Duration) {
        if known[peer] == nil, known.count >= config.knownPeersMax {
            // Forget the peer heard of longest ago (rare: the table is a size estimate).
            if let oldest = known.min(by: { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
                known.removeValue(forKey: oldest.key)
            }
        }
        known[peer] = now
    }

    /// Scored down: neither dialled nor admitted.
    func isHeldOff(_ peer: NodeNumber, now: Duration) -> Bool {
        guard let until = heldOff[peer] else { return false }
        return now < until
    }

    /// Said no lately: not dialled (admitted if it asks).
    func isDeclined(_ peer: NodeNumber, now: Duration) -> Bool {
        guard let until = declined[peer] else { return false }
        return now < until
    }

    /// Asked lately and was refused (`refusedAsks`).
    func wasRefused(_ peer: NodeNumber, now: Duration) -> Bool {
        refusedAsks[peer].map { now < $0 } ?? false
    }

    /// Not to be dialled now: held off or declined.
    func isUndialable(_ peer: NodeNumber, now: Duration) -> Bool {
        isHeldOff(peer, now: now) || isDeclined(peer, now: now)
    }

    mutating func expire(now: Duration) {
        known = known.filter { now - $0.value <= knownLifetime || active[$0.key] != nil }
        heldOff = heldOff.filter { now < $0.value }
        declined = declined.filter { now < $0.value }
        refusedAsks = refusedAsks.filter { now < $0.value }
        walked = walked.filter { now - $0.value < config.joinCooldown }
        redialed = redialed.filter { now - $0.value < config.redialWindow }
        lastJoin = lastJoin.filter { now - $0.value < config.joinCooldown }
    }

    /// Switches between full mesh and bounded views by the number of peers known.
    mutating func updateMode(now: Duration, _ out: inout [OverlayAction]) {
        let count = known.count + 1
        if isFullMesh, count >= config.fullMeshThreshold {
            isFullMesh = false
            joined = !active.isEmpty
            for peer in active.keys { addPassive(peer) }
            while active.count > target, let victim = victim(preferInbound: true) {
                drop(victim, holdOff: false, now: now, &out)
            }
        } else if !isFullMesh, count < config.fullMeshExit {
            isFullMesh = true
            for peer in known.keys.sorted() where active[peer] == nil && dialing[peer] == nil && !isUndialable(peer, now: now) {
                dial(peer, .neighbor(highPriority: false, inbound: false), now: now, &out)
            }
        }
    }

    mutating func dial(_ peer: NodeNumber, _ purpose: Purpose, now: Duration, _ out: inout [OverlayAction]) {
        guard peer != me else { return }
        dialing[peer] = Dial(purpose: purpose, deadline: now + config.linkDialTimeout)
        out.append(.dial(peer))
    }

    /// Puts `peer` in the active view, making room if needed; false if none could be made.
    @discardableResult
    mutating func admit(_ peer: NodeNumber, inbound: Bool, now: Duration, _ out: inout [OverlayAction]) -> Bool {
        if active[peer] != nil { return true }
        if !isFullMesh {
            if inbound, inboundCount >= config.inboundMax {
                guard let victim = victim(preferInbound: true, inboundOnly: true) else { return false }
                drop(victim, holdOff: false, now: now, &out)
            }
            while active.count >= config.activeViewMax, let victim = victim(preferInbound: inbound) {
                drop(victim, holdOff: false, now: now, &out)
            }
        }
        removePassive(peer)
        awaiting.removeValue(forKey: peer)
        active[peer] = ActivePeer(since: now, inbound: inbound)
        return true
    }

    /// The active peer to give up first: the lowest score, then a random one.
    mutating func victim(preferInbound: Bool, inboundOnly: Bool = false) -> NodeNumber? {
        var candidates = activePeers
        if inboundOnly || preferInbound {
            let inbound = candidates.filter { active[$0]?.inbound == true }
            if inboundOnly || !inbound.isEmpty { candidates = inbound }
        }
        guard let low = candidates.map(score).min() else { return nil }
        let lowest = candidates.filter { score($0) == low }
        return rng.pick(lowest)
    }

    /// Leaves the active view with a DISCONNECT; a bad peer is also held off.
    mutating func drop(_ peer: NodeNumber, holdOff: Bool, now: Duration, _ out: inout [OverlayAction]) {
        guard active.removeValue(forKey: peer) != nil else { return }
        scores.removeValue(forKey: peer)
        out.append(.send(.disconnect, to: peer))
        out.append(.close(peer))
        if holdOff {
            heldOff[peer] = now + config.cooldown
            removePassive(peer)
        } else {
            addPassive(peer)
        }
    }

    /// Dials passive peers while the active view is under its target. The
    /// request is high priority (it may evict) while the view is under its
    /// minimum, not only when empty: a small group whose neighbours are all
    /// full elsewhere would otherwise stay cut off from the rest (seen with
    /// 8 real nodes and views of 3 to 4: cliques of 5 and 3).
    ///
    /// At or above the minimum, a refused request holds the next fill off
    /// (`fillRetry`, doubling): once most views are at their target, the
    /// few under it were refused by nearly every peer they asked, and
    /// asking again at every tick made and cut 88 links a second among 300
    /// real nodes. HyParView itself fills only when a link fails.
    mutating func fill(now: Duration, _ out: inout [OverlayAction]) {
        guard !isFullMesh, joined || !active.isEmpty else { return }
        guard active.count < config.activeViewMin || now >= nextFillAt else { return }
        let pending = dialing.values.reduce(0) { $0 + ($1.purpose == .join ? 0 : 1) }
        var wanted = target - active.count - pending
        guard wanted > 0 else { return }
        let usable = passive.filter { dialing[$0] == nil && !isUndialable($0, now: now) }
        // A passive peer whose link is already up (it linked before this
        // node went partial, or dialled us and said nothing yet) comes
        // first: the "dial" is answered at once on that link, so the view
        // fills within a tick instead of waiting for `inboundGrace` to
        // close those links and dials to open them again.
        // Not a refused asker's link, though: it asked, so taking it first
        // would give it a slot kept for the node's own choices (a few
        // identities asking and waiting could fill the view). It is a
        // candidate like any other passive peer.
        let linked = usable.filter { links.contains($0) && !wasRefused($0, now: now) }
        let candidates = rng.sample(linked, wanted) + rng.sample(usable.filter { !linked.contains($0) }, max(0, wanted - linked.count))
        for peer in candidates where wanted > 0 {
            dial(peer, .neighbor(highPriority: active.count < config.activeViewMin, inbound: false), now: now, &out)
            wanted -= 1
        }
    }

    /// A fill request was refused: the next waits `fillRetry` doubled per
    /// refusal in a row, up to `fillRetryMax`.
    mutating func refusedFill(now: Duration) {
        fillRefusals = min(fillRefusals + 1, 30)
        var wait = config.fillRetry
        for _ in 1..<fillRefusals where wait < config.fillRetryMax { wait = wait * 2 }
        nextFillAt = now + min(wait, config.fillRetryMax)
    }

    /// GossipSub's opportunistic grafting: an active peer that delivers
    /// nothing first while the median one delivers plenty gives its place
    /// to a passive peer (a silent censor ends up here).
    mutating func replaceLaggard(now: Duration, _ out: inout [OverlayAction]) {
        guard active.count >= target, !passive.isEmpty else { return }
        let ranked = activePeers.sorted { score($0) < score($1) || (score($0) == score($1) && $0 < $1) }
        let median = score(ranked[ranked.count / 2])
        guard let worst = ranked.first, median >= config.opportunisticMedian, score(worst) <= 0,
              let since = active[worst]?.since, now - since > config.shuffleInterval else { return }
        drop(worst, holdOff: true, now: now, &out)
        fill(now: now, &out)
    }

    mutating func startShuffle(_ out: inout [OverlayAction]) {
        guard let target = rng.pick(activePeers) else { return }
        let peers = [me] + rng.sample(activePeers.filter { $0 != target }, config.shuffleActive)
            + rng.sample(passive, config.shufflePassive)
        out.append(.send(.shuffle(origin: me, ttl: config.passiveRandomWalk, peers: peers), to: target))
    }

    /// Peers a shuffle or an answer names: passive candidates. `counted`
    /// (the names the answer to our NEIGHBOR request came with) and in a
    /// full mesh: known too, so a node that bounded peers take or refuse
    /// learns the LAN is past the threshold. Not in bounded views: there the estimate
    /// would reach the whole LAN, the target the cap, and views would churn
    /// after slots their peers had filled (`IdleChurnTests`: 69-120 link
    /// changes a minute at 300, not < 60).
    mutating func integrate(_ peers: ArraySlice<NodeNumber>, counted: Bool, now: Duration) {
        for peer in peers where peer != me {
            if counted, isFullMesh { remember(peer, now: now) }
            if active[peer] == nil { addPassive(peer) }
        }
    }

    mutating func addPassive(_ peer: NodeNumber) {
        guard peer != me, active[peer] == nil, !passive.contains(peer) else { return }
        if passive.count >= config.passiveViewMax { passive.remove(at: rng.below(passive.count)) }
        passive.append(peer)
    }

    mutating func removePassive(_ peer: NodeNumber) {
        if let index = passive.firstIndex(of: peer) { passive.remove(at: index) }
    }
}
