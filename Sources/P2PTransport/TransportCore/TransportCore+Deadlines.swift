import ChatCore

extension TransportCore {
    /// The timeouts of link `id`: stretched for an overlay link above the
    /// threshold (`LinkLoad.stretched`).
    /// A handshake's timeout grows by the load's allowance (`SchedulingLag`).
    func timeouts(of id: Int, load: LinkLoad) -> LinkLifecycle.Timeouts {
        var result = load.stretched.contains(id) ? timeouts.stretched(by: overlayStretch) : timeouts
        result.quietKeepalive = timeouts.keepalive * Self.quietFactor
        result.quietDeadPeer = timeouts.deadPeer * Self.quietFactor
        result.pingsQuietly = load.quiet.contains(id)
        result.handshake += load.handshakeAllowance
        return result
    }

    /// A quiet link (capability `quietLinks`, PROTOCOL.md 5.1) pings and
    /// counts its peer dead this many times later than an ordinary one:
    /// 12 s and 36 s at the defaults. A crash still shows at once (the
    /// kernel closes the connection); only a silent cut takes longer to
    /// notice, and the overlay repairs around it.
    static let quietFactor = 6.0

    /// The dialler's ping on link `id`, quiet or not, went by (sent here if
    /// this end dialled, received if it accepted).
    mutating func noteDialerPing(_ id: Int, at now: Duration, quiet: Bool) {
        links[id]?.lifecycle.dialerPinged(at: now, quiet: quiet)
    }

    /// What each link's lifecycle says is due at `now`, by id. One link's
    /// keepalive due takes along those nearly due (`keepaliveSlack`): the
    /// links' pings fall into step, one wake-up for all of them.
    func timerFired(at now: Duration, load: LinkLoad) -> [TransportAction] {
        func decision(_ entry: LinkEntry, early: Bool) -> LinkLifecycle.Decision? {
            entry.lifecycle.decision(at: now, hasQueuedOutput: load.queued.contains(entry.id),
                                     timeouts: timeouts(of: entry.id, load: load), early: early)
        }
        let early = links.values.contains { decision($0, early: false) == .keepalive }
        var actions: [TransportAction] = []
        for entry in links.values.sorted(by: { $0.id < $1.id }) {
            switch decision(entry, early: early) {
            case nil: break
            case .handshakeTimedOut: actions.append(.close(entry.id, .handshakeTimedOut))
            case .peerSilent: actions.append(.close(entry.id, .peerSilent(after: timeouts(of: entry.id, load: load).deadPeer)))
            case .writeStalled: actions.append(.close(entry.id, .writeStalled))
            case .probeUnanswered: actions.append(.close(entry.id, .probeUnanswered))
            case .keepalive: actions.append(.ping(entry.id))
            case .retirementOver: actions.append(.release(entry.id))
            }
        }
        return actions
    }

    /// A link's deadline is a fraction of a second away at most (a
    /// handshake, a probe, a retirement): the timer then runs every busy tick.
    var hasShortDeadlines: Bool { links.values.contains { $0.lifecycle.hasShortDeadline } }

    /// Puts the links' deadlines into `plan`: busy ticks while one is short,
    /// else the earliest of them.
    func planWake(_ plan: inout WakePlan, load: LinkLoad) {
        guard !hasShortDeadlines else {
            plan.needsBusyTicks()
            return
        }
        for entry in links.values {
            plan.due(entry.lifecycle.nextDeadline(hasQueuedOutput: load.queued.contains(entry.id),
                                                  timeouts: timeouts(of: entry.id, load: load)))
        }
    }
}
