import ChatCore

/// When the service's timer next has to run, as a pure value: the earliest
/// of the deadlines it is told (the next beacon turn, each link's
/// keepalive or dead-peer check, a dial, an announcement's expiry, the
/// overlay's next step), not a fixed tick. An idle node then wakes when
/// something is due and at no other time; before it woke every 250 ms.
///
/// While something with a short deadline is under way (a handshake, a
/// probe, a throttled link, the start burst) the plan is a `busy` tick
/// later, as before. A deadline already passed that the tick could not act
/// on (a dial waiting for a free slot) is looked at again a busy tick
/// later, not at once, so nothing spins. `longest` bounds any sleep.
///
/// Pure: the service reads the deadlines, this says when; tests drive it
/// on a manual clock.
struct WakePlan: Sendable, Hashable {
    let now: Duration
    /// The short tick (`P2PConfiguration.tickInterval`).
    let busy: Duration
    /// The longest sleep, whatever the deadlines say.
    let longest: Duration
    /// Something with a short deadline is under way.
    private(set) var isBusy = false
    /// The earliest deadline told so far.
    private(set) var earliest: Duration?

    init(now: Duration, busy: Duration, longest: Duration) {
        self.now = now
        self.busy = busy
        self.longest = max(longest, busy)
    }

    /// Something is due at `deadline` (nil: nothing).
    mutating func due(_ deadline: Duration?) {
        guard let deadline else { return }
        earliest = min(earliest ?? deadline, deadline)
    }

    /// Something needs the short tick.
    mutating func needsBusyTicks() { isBusy = true }

    /// When the timer runs next.
    var wake: Duration {
        if isBusy { return now + busy }
        guard let earliest else { return now + longest }
        if earliest <= now { return now + busy }
        return min(earliest, now + longest)
    }
}
