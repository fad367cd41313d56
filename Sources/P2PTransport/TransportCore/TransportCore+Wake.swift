import ChatCore

/// What the last full wake plan found in the announcements: the earliest
/// dial and expiry (nil: none), and whether that plan still holds (no
/// event since it was made that could move them). The tick's passes over
/// the announcements run only when it found something due, or no longer
/// holds, so an idle tick costs no pass.
struct PlannedPasses: Sendable, Hashable {
    var dialsDue: Duration?
    var expiryDue: Duration?
    var known = false
}

/// What the shell knows that the wake plan reads.
struct WakeFacts: Sendable, Hashable {
    /// Queued output and stretched links (the links' deadlines).
    var load = LinkLoad()
    /// The overlay's say in the dial rule (`dialDue`).
    var overlay = OverlayView.none
    /// When the overlay's next step is due.
    var overlayDue: Duration?
    /// The shell has a short deadline of its own: reading paused, a
    /// throttled link.
    var busy = false

    init(load: LinkLoad = LinkLoad(), overlay: OverlayView = .none, overlayDue: Duration? = nil, busy: Bool = false) {
        self.load = load
        self.overlay = overlay
        self.overlayDue = overlayDue
        self.busy = busy
    }
}

extension TransportCore {
    /// No sleep is longer, whatever the deadlines say: a safety net for a
    /// deadline the plan does not know of.
    static let longestSleep: Duration = .seconds(5)

    /// The start burst, a deferred or delayed answer, a claim being checked,
    /// a link not yet (or no longer) plainly established: the timer then
    /// runs every busy tick. Anything else has a deadline of its own.
    var isBusy: Bool {
        // The burst counts down with beacons; without broadcast there are none.
        let bursting = beacons.burstLeft > 0 && discovery.beacons
        return bursting || beacons.answerDeferred || answers.nextDue != nil || !claims.isEmpty || hasShortDeadlines
    }

    /// When the timer must run next: the earliest of every deadline the
    /// core holds and the shell reports (`WakePlan`). One pass over the
    /// announcements, whose findings the tick's passes read (`planned`).
    mutating func nextWake(at now: Duration, facts: WakeFacts) -> Duration {
        var plan = WakePlan(now: now, busy: discovery.busyTick, longest: Self.longestSleep)
        planned.known = false
        guard !facts.busy, !isBusy else {
            plan.needsBusyTicks()
            return plan.wake
        }
        if discovery.beacons { plan.due(beacons.nextAt) }
        plan.due(facts.overlayDue)
        plan.due(answers.nextDue)
        // One pass over the announcements: dials and expiries.
        let expiry = announcementTimeout
        var dials = WakePlan(now: now, busy: discovery.busyTick, longest: Self.longestSleep)
        var expiries = dials
        for (number, timing) in announcements.timings where established[number] == nil {
            dials.due(dialDue(number, timing, overlay: facts.overlay))
            if let since = timing.unlinkedSince {
                expiries.due(max(timing.lastSeen, since) + expiry + .nanoseconds(1))
            }
        }
        planned = PlannedPasses(dialsDue: dials.earliest, expiryDue: expiries.earliest, known: true)
        plan.due(dials.earliest)
        // Forgetting a silent peer may wait an eighth of its timeout: the
        // expiries of many peers then share a wake-up (or ride on another:
        // the tick expires whatever is due), not one each.
        plan.due(expiries.earliest.map { $0 + expiry / 8 })
        for index in statics.indices where staticPeerWantsDial(index) {
            plan.due(statics[index].nextDialAt)
        }
        planWake(&plan, load: facts.load)
        return plan.wake
    }

    /// What events can bring forward, without the passes over the
    /// announcements and links: a short deadline begun, the overlay's next
    /// step, an answer, the beacon, and the last full plan's announcement
    /// deadlines (which the next tick then looks at again). A link's own
    /// deadlines only move later with its traffic.
    mutating func quickWake(at now: Duration, facts: WakeFacts) -> Duration {
        var plan = WakePlan(now: now, busy: discovery.busyTick, longest: Self.longestSleep)
        planned.known = false
        if facts.busy || isBusy { plan.needsBusyTicks() }
        if discovery.beacons { plan.due(beacons.nextAt) }
        plan.due(facts.overlayDue)
        plan.due(answers.nextDue)
        plan.due(planned.dialsDue)
        plan.due(planned.expiryDue.map { $0 + announcementTimeout / 8 })
        return plan.wake
    }

    /// Whether the tick's pass over the announcements for `due` (their
    /// dials or expiries, as of the last full plan) can find anything.
    func passNeeded(_ due: Duration?, at now: Duration) -> Bool {
        guard planned.known else { return true }
        return due.map { now >= $0 } ?? false
    }

    /// Something moved that the last plan's findings depend on.
    @discardableResult
    mutating func forgetPlannedPasses() -> [TransportAction] {
        planned.known = false
        return []
    }
}
