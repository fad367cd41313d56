import ChatCore

extension TransportCore {
    /// When announced peer `number` is to be dialled, by the dial rule
    /// (nil: not by this node, or not yet known to be unlinked). Above the
    /// overlay's threshold only the peers it asks for and those without
    /// it; a peer the overlay (or a DM) asks for at its `nextDialAt`;
    /// otherwise the lower number at its `nextDialAt`, and the higher only
    /// once the peer has gone `fallbackDialDelay` without a link, or at
    /// once if its answer became a dial (`NewcomerAnswers`).
    func dialDue(_ number: NodeNumber, _ announcement: Announcement, overlay: OverlayView) -> Duration? {
        dialDue(number, Timing(announcement), overlay: overlay)
    }

    func dialDue(_ number: NodeNumber, _ timing: Timing, overlay: OverlayView) -> Duration? {
        guard overlay.permitsDial(number) else { return nil }
        if overlay.asked.contains(number) { return timing.nextDialAt }
        if LinkArbiter.shouldDialOnDiscovery(local: me, remote: number) || answers.dialsEarly(number) {
            return timing.nextDialAt
        }
        guard let since = timing.unlinkedSince else { return nil }
        return max(timing.nextDialAt, since + discovery.fallbackDialDelay)
    }

    /// Dials announced peers that have no link and are due by the dial
    /// rule, within the dial budgets (`planDials`: one over a cap waits for
    /// a later pass, recorded in the table and counted here).
    ///
    /// `only`: the number a beacon just announced, or the overlay asks
    /// for: the one that may have become due (a pass over the whole table
    /// per beacon was most of what a 10k/s flood cost). While the table is
    /// crowded (entries were evicted lately: a flood), an unproven number
    /// heard once is left for the tick's ordered pass, where the most often
    /// heard go first, so the flood's inventions do not take every dial
    /// token as they arrive.
    mutating func dialPass(only: NodeNumber? = nil, at now: Duration, overlay: OverlayView) -> [TransportAction] {
        if let only, let announcement = announcements[only], !announcement.hasLinked, announcement.heardCount < 2,
           announcements.isCrowded(at: now, window: discovery.busyTick * 4) {
            return []
        }
        // Runs per new beacon, and per tick when the last plan found a dial
        // due: the common case (everyone linked, or not due yet) must cost a
        // pass over the table only (its entries, not a lookup each: a
        // lookup copied the table).
        var due: [DialCandidate] = []
        func consider(_ number: NodeNumber, _ announcement: Announcement) {
            guard established[number] == nil, now >= announcement.nextDialAt,
                  let dueAt = dialDue(number, announcement, overlay: overlay), now >= dueAt else { return }
            due.append(.init(number: number, endpoint: announcement.endpoint, proven: announcement.hasLinked,
                             heard: announcement.heardCount))
        }
        if let only {
            if let announcement = announcements[only] { consider(only, announcement) }
        } else {
            // The timings first (plain values); an entry is copied only when due.
            for (number, timing) in announcements.timings where established[number] == nil && now >= timing.nextDialAt {
                guard let dueAt = dialDue(number, timing, overlay: overlay), now >= dueAt,
                      let announcement = announcements[number] else { continue }
                consider(number, announcement)
            }
        }
        guard !due.isEmpty else { return [] }
        var actions = planDials(due, at: now)
        actions.removeAll { action in
            guard case .deferDial(let number) = action else { return false }
            if announcements.deferDial(number) { counts.deferredDials += 1 }
            return true
        }
        return actions
    }

    /// Whether the tick's pass over the announcements can find a dial due
    /// (the last plan found one, or no longer holds): the shell builds the
    /// overlay's view for the whole table only then.
    func dialPassDue(at now: Duration) -> Bool { passNeeded(planned.dialsDue, at: now) }

    /// The tick's dials: announced peers (when `dialPassDue`; `overlay` nil:
    /// the shell found it was not) and static peers.
    mutating func dialTurn(at now: Duration, overlay: OverlayView?) -> [TransportAction] {
        var actions: [TransportAction] = []
        if let overlay, passNeeded(planned.dialsDue, at: now) { actions = dialPass(at: now, overlay: overlay) }
        return actions + staticDials(at: now)
    }
}
