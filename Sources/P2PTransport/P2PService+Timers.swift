import ChatCore
import Foundation

extension P2PService {
    /// The start burst, a deferred or delayed answer, a claim being checked,
    /// paused reading, a link not yet (or no longer) plainly established,
    /// a throttled link: the timer then runs every `tickInterval`
    /// (`nextWake`). Anything else has a deadline of its own.
    var hasShortDeadlines: Bool {
        // The burst counts down with beacons; without broadcast there are none.
        let bursting = burstLeft > 0 && configuration.broadcastAddresses != []
        if bursting || answerDeferred || newcomerAnswers.nextDue != nil || !pendingClaims.isEmpty || readingPaused { return true }
        return core.hasShortDeadlines || links.values.contains(where: \.isThrottled)
    }

    /// When an announced peer with no link is to be dialled, by the dial
    /// rule: the lower number at its `nextDialAt`; the higher only once the
    /// peer has gone `fallbackDialDelay` without a link (nil: not yet known
    /// to be unlinked), or at once if its answer became a dial
    /// (`NewcomerAnswers`).
    func dialDue(_ number: NodeNumber, _ announcement: Announcement) -> Duration? {
        // Above the overlay's threshold only the peers it asks for (at once) and those without it.
        guard overlayPermitsDial(number) else { return nil }
        if overlayWants(number) { return announcement.nextDialAt }
        if LinkArbiter.shouldDialOnDiscovery(local: identity.number, remote: number) || newcomerAnswers.dialsEarly(number) {
            return announcement.nextDialAt
        }
        guard let since = announcement.unlinkedSince else { return nil }
        return max(announcement.nextDialAt, since + configuration.fallbackDialDelay)
    }

    /// Whether static peer `index` needs a dial, its timing aside: not this
    /// node, not being resolved, and linked neither by its own dial nor
    /// otherwise (by number, or by address when it is an IPv4 literal).
    func staticPeerWantsDial(_ index: Int) -> Bool {
        let entry = staticPeers[index]
        if entry.isSelf || entry.resolving || links.values.contains(where: { $0.staticIndex == index }) { return false }
        if let number = entry.number, established[number] != nil { return false }
        if let endpoint = IPv4Endpoint(host: entry.address.host, port: entry.address.port), isLinked(to: endpoint) { return false }
        return true
    }

    /// Runs when the timer wakes (`nextWake`): beacons, dials, link deadlines.
    func tick() {
        guard lifecycle == .running, !frozen else { return }
        let now = self.now
        if configuration.broadcastAddresses != [], now >= nextBeaconAt {
            refreshDefaultScope()
            beaconTurn(at: now)
        }
        // The passes over the announcements only when the last plan found
        // something due in them (or no longer holds).
        if announcementPassNeeded(timer.expiryDue, at: now) {
            // On a large LAN an unlinked peer's entry may expire between two of its beacons: not a newcomer when heard again.
            announcements.expire(at: now, timeout: announcementTimeout, remember: knownNodesAtTurn > configuration.beaconPolicy.quietSize)
        }
        newcomerAnswers.forget { announcements[$0] == nil }
        sendDueAnswers()
        tickOverlay()
        if announcementPassNeeded(timer.dialsDue, at: now) { dialAnnouncedPeers() }
        dialStaticPeers()
        // Reading resumes where the budget refilled; silence while this
        // side does not read is not the peer's. Then the core says what
        // each link's deadlines call for.
        for link in links.values.sorted(by: { $0.id < $1.id }) where !link.isClosed {
            if link.isThrottled { resumeReading(link) }
            if !link.isClosed, link.isThrottled || waitsForNode(link) { core.noteNotReading(link.id, at: now) }
        }
        perform(core.handle(.timerFired(at: now, load: linkLoad)))
    }

    /// The beacon due at `now`: the start burst and a deferred answer always
    /// go out; a periodic one as `beaconSchedule` decides.
    private func beaconTurn(at now: Duration) {
        knownNodesAtTurn = knownNodeCount
        let interval = beaconSchedule.interval(knownNodes: knownNodesAtTurn)
        guard burstLeft == 0, !answerDeferred else {
            sendDiscovery(.beacon)
            if answerDeferred {
                // This beacon is the answer that had to wait.
                lastAnswerBeaconAt = now
                stats.answersBroadcast += 1
                answerDeferred = false
            }
            if burstLeft > 1 {
                burstLeft -= 1
                nextBeaconAt = now + min(Self.burstGap, configuration.beaconInterval / 2)
            } else {
                burstLeft = 0
                nextBeaconAt = now + interval * Double.random(in: 0.8...1.2)
            }
            return
        }
        let turn = beaconSchedule.turn(at: now, knownNodes: knownNodesAtTurn,
                                       canLinkMore: core.canOpenLink, boundedLinks: overlayIsPartial,
                                       links: established.count, random: Double.random(in: 0..<1)) { established[$0] != nil }
        nextBeaconAt = turn.next
        if turn.send {
            sendDiscovery(.beacon)
        } else {
            stats.beaconsSkipped += 1
        }
    }

    /// Nodes this one knows alive, itself included: its links, and the
    /// unlinked announcements heard more than once (a flood's inventions
    /// are heard once; a real node's start burst is three). The LAN's size
    /// for `BeaconSchedule`, counted once a turn. A flood that repeats its
    /// inventions can raise it to `maxAnnouncements`, which only stretches
    /// the interval to its cap.
    var knownNodeCount: Int {
        var count = established.count + 1
        for (number, entry) in announcements.entries where entry.heardCount >= 2 && established[number] == nil {
            count += 1
        }
        return count
    }

    /// Dials announced peers that have no link, per the dial rule: the lower
    /// number dials at once; the higher only after `fallbackDialDelay`
    /// without a link.
    ///
    /// Dials are bounded (`PeerLimits.maxPendingDials`, per address and in
    /// all, and `maxLinks`): one over a cap waits for a later pass (every
    /// tick), so a flood of announced inventions holds a bounded number of
    /// descriptors while real peers still get their turn.
    ///
    /// `only`: the number a beacon just announced, the one that may have
    /// become due (a pass over the whole table per beacon was most of what
    /// a 10k/s flood cost). While the table is crowded (entries were
    /// evicted lately: a flood), an unproven number heard once is left for
    /// the tick's ordered pass, where the most often heard go first, so the
    /// flood's inventions do not take every dial token as they arrive.
    func dialAnnouncedPeers(only: NodeNumber? = nil) {
        let now = self.now
        if let only, let announcement = announcements[only], !announcement.hasLinked, announcement.heardCount < 2,
           announcements.isCrowded(at: now, window: configuration.tickInterval * 4) {
            return
        }
        // Runs per new beacon, and per tick when the last plan found a dial
        // due: the common case (everyone linked, or not due yet) must cost a
        // pass over the table only (its entries, not a lookup each: a
        // lookup copied the table).
        var due: [TransportCore.DialCandidate] = []
        func consider(_ number: NodeNumber, _ announcement: Announcement) {
            guard established[number] == nil, now >= announcement.nextDialAt,
                  let dueAt = dialDue(number, announcement), now >= dueAt else { return }
            due.append(.init(number: number, endpoint: announcement.endpoint, proven: announcement.hasLinked,
                             heard: announcement.heardCount))
        }
        if let only {
            if let announcement = announcements[only] { consider(only, announcement) }
        } else {
            for (number, announcement) in announcements.entries { consider(number, announcement) }
        }
        // The core spends the dial budgets (`TransportCore+Dials`).
        if !due.isEmpty { perform(core.handle(.dialsDue(due, at: now))) }
    }

    /// Dials static peers that have no link, resolving names off the actor.
    func dialStaticPeers() {
        let now = self.now
        for index in staticPeers.indices {
            let entry = staticPeers[index]
            guard now >= entry.nextDialAt, staticPeerWantsDial(index) else { continue }
            if let endpoint = IPv4Endpoint(host: entry.address.host, port: entry.address.port) {
                staticPeers[index].nextDialAt = now + configuration.maxReconnectDelay // replaced on failure
                dial(endpoint, expecting: entry.number, staticIndex: index)
                continue
            }
            staticPeers[index].resolving = true
            let address = entry.address
            Task { [weak self] in
                let result: Result<IPv4Endpoint, TransportError>
                do throws(TransportError) {
                    result = .success(try await HostResolver.resolve(address.host, port: address.port))
                } catch {
                    result = .failure(error)
                }
                await self?.resolved(staticIndex: index, result)
            }
        }
    }

    private func resolved(staticIndex index: Int, _ result: Result<IPv4Endpoint, TransportError>) {
        guard lifecycle == .running, staticPeers.indices.contains(index) else { return }
        staticPeers[index].resolving = false
        switch result {
        case .success(let endpoint):
            guard !isLinked(to: endpoint) else {
                // Linked some other way (it dialled us): learn who it is, so
                // that link's loss redials it at once, and look again later,
                // not on the next tick.
                if let linked = established.first(where: { $0.value.peer?.address == endpoint.description }) {
                    staticPeers[index].number = linked.key
                }
                staticPeers[index].nextDialAt = now + configuration.maxReconnectDelay
                return
            }
            dial(endpoint, expecting: staticPeers[index].number, staticIndex: index)
        case .failure(let error):
            logger.info("static peer \(staticPeers[index].address): \(error)")
            staticPeers[index].nextDialAt = now + staticPeers[index].backoff.nextDelay()
        }
    }

    /// Whether an established link goes to the peer listening at `endpoint`.
    private func isLinked(to endpoint: IPv4Endpoint) -> Bool {
        established.values.contains { $0.peer?.address == endpoint.description }
    }
}
