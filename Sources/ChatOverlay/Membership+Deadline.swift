import ChatCore

extension Membership {
    /// When `tick` next has something to do, so the shell sleeps until
    /// then instead of ticking every `membershipTick` (which was most of an
    /// idle node's wake-ups). It reads the same state `tick` acts on: a
    /// dial's timeout, an inbound link's grace, the next shuffle and fill,
    /// the housekeeping (`expire`, every 5 s, which also covers a hold-off
    /// or refusal running out); and `now` when `tick` would act at once (a
    /// peer scored out, a link no table holds, a view to join or fill). Each
    /// of those `tick` settles, so the answer after a tick is later than
    /// its `now` (the tests check it). Any input changes the state, and the
    /// shell asks again after each.
    public func nextDeadline(now: Duration) -> Duration {
        var due = nextExpiry
        for dial in dialing.values { due = min(due, dial.deadline) }
        if active.keys.contains(where: { score($0) < config.dropScore }) { return now }
        guard !isFullMesh else { return due }
        // `tick` closes an awaited link once more than the grace has passed.
        for since in awaiting.values { due = min(due, since + config.inboundGrace + .nanoseconds(1)) }
        if links.contains(where: { active[$0] == nil && dialing[$0] == nil && awaiting[$0] == nil }) { return now }
        if !joined, !dialing.values.contains(where: { $0.purpose == .join }),
           passive.contains(where: { !isUndialable($0, now: now) }) { return now }
        if let fill = fillDue(now: now) { due = min(due, fill) }
        return min(due, nextShuffle)
    }

    /// When `fill` would dial: at once under the minimum, else once its
    /// retry wait is over; nil when it has nothing to do or no one to ask.
    private func fillDue(now: Duration) -> Duration? {
        guard joined || !active.isEmpty else { return nil }
        let pending = dialing.values.reduce(0) { $0 + ($1.purpose == .join ? 0 : 1) }
        guard target - active.count - pending > 0,
              passive.contains(where: { dialing[$0] == nil && !isUndialable($0, now: now) }) else { return nil }
        return active.count < config.activeViewMin ? now : max(now, nextFillAt)
    }
}
