import ChatCore

extension P2PService {
    /// The service's one timer task and when it wakes next; the core plans
    /// when (`TransportCore+Wake`), the shell sleeps on the injected clock.
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
        /// When the overlay's next step is due, as of its last step.
        var overlayDue: Duration?
        /// The clock is the host's own: a late wake-up is the host's delay
        /// (`SchedulingLag`), not a manual clock's jump in a test.
        var measuresLag = false
    }

    /// No sleep is longer, whatever the deadlines say.
    static let longestSleep = TransportCore.longestSleep

    /// A full plan between wake-ups at most this often. Its pass over the
    /// announcements costs a node of a 1,000-node LAN as much as the event
    /// that asked for it: once a busy tick (50 ms), 1,000 nodes on one
    /// host spent a quarter of their CPU in it while messages streamed.
    /// What an event makes due at once (a dial on a new beacon, a handshake)
    /// is done or planned without it; the rest waits for the quick plan's
    /// last findings or the next tick's full plan.
    static let fullReplanGap: Duration = .seconds(1)

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
        holdDiscoveryWhileIdle()
        return next
    }

    /// Beacons heard while idle wait for company (`PollLoop.holdLazyReports`):
    /// up to `discoveryHold`, only above the overlay's threshold (a newcomer
    /// needs a few links, not one from everyone), and not while anything
    /// with a short deadline is under way (a start burst, an answer to
    /// give, a handshake), when hearing at once matters. In a full mesh the
    /// answers to a newcomer give way to each other within 20-120 ms
    /// (`NewcomerAnswers`): hearing spread over half a second undid that
    /// (`NewcomerAnswerTests`: 11 answers of 28 instead of at most 9).
    func holdDiscoveryWhileIdle() {
        loop?.holdLazyReports(for: hasShortDeadlines || !overlayIsPartial ? .zero : configuration.discoveryHold)
    }

    /// The overlay took a step (`P2PService+Overlay.swift`): its next is
    /// read once here, and the timer moves up if that is sooner.
    func overlayStepped() {
        timer.overlayDue = overlayNextTick
        // It may have asked for dials the tick's pass makes.
        perform(core.handle(.overlayChanged))
        replanWake()
    }

    /// Events between two wake-ups (frames, a send, an overlay step) may
    /// make something due before the planned wake-up: then the timer moves
    /// up. While a busy tick is near, nothing to do; while events stream
    /// in, a full plan at most once every `fullReplanGap`, and in between
    /// a quick one (`quickWake`).
    func replanWake() {
        guard lifecycle == .running, !frozen, !timer.inTurn, let due = timer.due else { return }
        let now = self.now
        guard due > now + timer.busy else {
            core.forgetPlannedPasses()
            return
        }
        let wake: Duration
        if let last = timer.replannedAt, now - last < Self.fullReplanGap {
            wake = quickWake()
        } else {
            timer.replannedAt = now
            wake = nextWake()
        }
        if wake < due { armTimer(at: wake) }
    }

    /// What events can bring forward, without the passes over the
    /// announcements and links (`TransportCore.quickWake`).
    private func quickWake() -> Duration {
        core.quickWake(at: now, facts: WakeFacts(overlayDue: timer.overlayDue, busy: shellIsBusy))
    }

    /// When the timer must run next: the earliest of every deadline the
    /// core holds and the shell reports (`TransportCore.nextWake`). The
    /// links' load and the overlay's view only when the plan reads them.
    func nextWake() -> Duration {
        let busy = shellIsBusy
        guard !busy, !core.isBusy else { return core.nextWake(at: now, facts: WakeFacts(busy: busy)) }
        return core.nextWake(at: now, facts: WakeFacts(load: linkLoad, overlay: overlayView(), overlayDue: timer.overlayDue))
    }

    /// Above the overlay's threshold its links (a few chosen ones a node,
    /// on a large LAN) ping this many times less often and count a peer
    /// dead as many times later (`Timeouts.stretched`: 4 s and 12 s at the
    /// defaults). A crash still shows at once (the kernel closes the
    /// connection); only a silent cut takes longer to notice, and the
    /// overlay repairs around it.
    static let overlayLinkStretch = 2.0
}
