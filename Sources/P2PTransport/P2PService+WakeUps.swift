import ChatCore

extension P2PService {
    /// The service's one timer task, when it wakes next, and what the last
    /// full plan found (read by `tick`, so an idle tick skips passes over
    /// the announcements that have nothing due).
    ///
    /// The values read from the configuration and the overlay are copied
    /// here once: reading a method of a stored struct of the actor copies
    /// the whole struct first, and the plan runs at every wake-up.
    struct ServiceTimer {
        var task: Task<Void, Never>?
        /// When the task wakes next (nil: no timer running).
        var due: Duration?
        /// When events between ticks last made a full plan: at most one a
        /// busy tick (`replanWake`).
        var replannedAt: Duration?
        /// A tick or a batch of readiness reports runs: what it changes is
        /// planned once, at its end.
        var inTurn = false
        /// `P2PConfiguration.tickInterval`.
        var busy: Duration = .milliseconds(50)
        /// Whether beacons go out at all (a broadcast address is set).
        var beacons = true
        /// When the overlay's next step is due, as of its last step.
        var overlayDue: Duration?
        /// The earliest announced peer's dial and announcement expiry the
        /// last full plan found (nil: none), and whether that plan still
        /// holds (no event since it was skipped).
        var dialsDue: Duration?
        var expiryDue: Duration?
        var deadlinesKnown = false
        /// The clock is the host's own: a late wake-up is the host's delay
        /// (`SchedulingLag`), not a manual clock's jump in a test.
        var measuresLag = false
    }

    /// No sleep is longer, whatever the deadlines say: a safety net for a
    /// deadline the plan does not know of.
    static let longestSleep: Duration = .seconds(5)

    /// Starts the timer to wake at `due`, replacing any running one (a
    /// cancelled sleep ends at once, and a woken one that was replaced
    /// finds itself cancelled in `timerFired`). Every timer of the
    /// transport waits here, on the injected clock: with a manual clock
    /// the service ticks only when a test advances it.
    func armTimer(at due: Duration) {
        timer.task?.cancel()
        timer.due = due
        let clock = self.clock
        timer.task = Task { [weak self] in
            var due = due
            while true {
                do { try await clock.sleep(until: due) } catch { return }
                guard let self, let next = await self.timerFired() else { return }
                due = next
            }
        }
    }

    /// Reads what the plan keeps from the configuration and the overlay, at start.
    func prepareTimer() {
        timer.busy = configuration.tickInterval
        timer.beacons = configuration.broadcastAddresses != []
        timer.overlayDue = overlayNextTick
        timer.measuresLag = clock is SystemClock
    }

    func stopTimer() {
        timer.task?.cancel()
        timer.task = nil
        timer.due = nil
    }

    /// The timer woke: runs `tick`, then says when it is next due (nil:
    /// this task was replaced or the service stopped).
    private func timerFired() -> Duration? {
        guard !Task.isCancelled, lifecycle == .running, !frozen else { return nil }
        stats.timerWakes += 1
        if timer.measuresLag, let due = timer.due { schedulingLag.woke(at: now, due: due) }
        timer.inTurn = true
        tick()
        timer.inTurn = false
        let next = nextWake()
        timer.due = next
        return next
    }

    /// The overlay took a step (`P2PService+Overlay.swift`): its next is
    /// read once here, and the timer moves up if that is sooner.
    func overlayStepped() {
        timer.overlayDue = overlayNextTick
        // It may have asked for dials the tick's pass makes.
        timer.deadlinesKnown = false
        replanWake()
    }

    /// Events between two wake-ups (frames, a send, an overlay step) may
    /// make something due before the planned wake-up: then the timer moves
    /// up. While a busy tick is near, nothing to do; while events stream
    /// in, a full plan at most once a busy tick, and in between a quick
    /// one (`quickWake`).
    func replanWake() {
        guard lifecycle == .running, !frozen, !timer.inTurn, let due = timer.due else { return }
        let now = self.now
        guard due > now + timer.busy else {
            timer.deadlinesKnown = false
            return
        }
        let wake: Duration
        if let last = timer.replannedAt, now - last < timer.busy {
            wake = quickWake()
        } else {
            timer.replannedAt = now
            wake = nextWake()
        }
        if wake < due { armTimer(at: wake) }
    }

    /// What events can bring forward, without the passes over the
    /// announcements and links: a short deadline begun, the overlay's next
    /// step, an answer, the beacon, and the last full plan's announcement
    /// deadlines (which the next tick then looks at again). A link's own
    /// deadlines only move later with its traffic.
    private func quickWake() -> Duration {
        var plan = WakePlan(now: now, busy: timer.busy, longest: Self.longestSleep)
        timer.deadlinesKnown = false
        if hasShortDeadlines { plan.needsBusyTicks() }
        if timer.beacons { plan.due(nextBeaconAt) }
        plan.due(timer.overlayDue)
        plan.due(newcomerAnswers.nextDue)
        plan.due(timer.dialsDue)
        plan.due(timer.expiryDue.map { $0 + announcementTimeout / 8 })
        return plan.wake
    }

    /// When the timer must run next: the earliest of every deadline the
    /// service holds (`WakePlan`).
    func nextWake() -> Duration {
        let now = self.now
        var plan = WakePlan(now: now, busy: timer.busy, longest: Self.longestSleep)
        timer.deadlinesKnown = false
        guard !hasShortDeadlines else {
            plan.needsBusyTicks()
            return plan.wake
        }
        if timer.beacons { plan.due(nextBeaconAt) }
        plan.due(timer.overlayDue)
        plan.due(newcomerAnswers.nextDue)
        // One pass over the announcements: dials and expiries.
        let expiry = announcementTimeout
        var dials = WakePlan(now: now, busy: timer.busy, longest: Self.longestSleep)
        var expiries = dials
        for (number, announcement) in announcements.entries where established[number] == nil {
            dials.due(dialDue(number, announcement))
            if let since = announcement.unlinkedSince {
                expiries.due(max(announcement.lastSeen, since) + expiry + .nanoseconds(1))
            }
        }
        (timer.dialsDue, timer.expiryDue, timer.deadlinesKnown) = (dials.earliest, expiries.earliest, true)
        plan.due(dials.earliest)
        // Forgetting a silent peer may wait an eighth of its timeout: the
        // expiries of many peers then share a wake-up (or ride on another:
        // the tick expires whatever is due), not one each.
        plan.due(expiries.earliest.map { $0 + expiry / 8 })
        for index in staticPeers.indices where staticPeerWantsDial(index) {
            plan.due(staticPeers[index].nextDialAt)
        }
        core.planWake(&plan, load: linkLoad)
        return plan.wake
    }

    /// Whether the tick's pass over the announcements for `due` (their
    /// dials or expiries, as of the last full plan) can find anything.
    func announcementPassNeeded(_ due: Duration?, at now: Duration) -> Bool {
        guard timer.deadlinesKnown else { return true }
        return due.map { now >= $0 } ?? false
    }

    /// Above the overlay's threshold its links (a few chosen ones a node,
    /// on a large LAN) ping this many times less often and count a peer
    /// dead as many times later (`Timeouts.stretched`: 4 s and 12 s at the
    /// defaults). A crash still shows at once (the kernel closes the
    /// connection); only a silent cut takes longer to notice, and the
    /// overlay repairs around it.
    static let overlayLinkStretch = 2.0

    /// An announcement lives about three of the LAN's beacon intervals:
    /// stretched as the schedule stretches them (the size as of the last turn).
    var announcementTimeout: Duration {
        let stretch = beaconSchedule.interval(knownNodes: knownNodesAtTurn) / configuration.beaconInterval
        return configuration.deadPeerTimeout * max(stretch, 1)
    }
}
