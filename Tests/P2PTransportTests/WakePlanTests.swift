import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// The timer's plan as pure values: it wakes when a deadline is due and at
/// no other time, and never sleeps past one. Driven on a manual clock.
@Suite struct WakePlanTests {
    static let timeouts = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(6), write: .seconds(5),
                                                 keepalive: .seconds(2))
    static let busy = Duration.milliseconds(50)

    @Test func theEarliestDeadlineWinsWithinTheLongestSleep() {
        var plan = WakePlan(now: .seconds(10), busy: Self.busy, longest: .seconds(5))
        #expect(plan.wake == .seconds(15), "nothing due: the longest sleep")
        plan.due(nil)
        plan.due(.seconds(13))
        plan.due(.milliseconds(11_500))
        plan.due(.seconds(14))
        #expect(plan.wake == .milliseconds(11_500))
        plan.due(.seconds(10))
        #expect(plan.wake == .milliseconds(10_050), "a deadline due but not acted on: a busy tick later, no spin")
        var far = WakePlan(now: .seconds(10), busy: Self.busy, longest: .seconds(5))
        far.due(.seconds(40))
        #expect(far.wake == .seconds(15))
        far.needsBusyTicks()
        #expect(far.wake == .milliseconds(10_050), "a short deadline under way: busy ticks")
    }

    /// `nextDeadline` is exactly when `decision` first says something: not
    /// an instant sooner (a wake-up for nothing) and not later (a deadline
    /// missed), in every phase and after any history of frames.
    @Test(arguments: 0..<200)
    func theNextDeadlineIsWhenTheDecisionFirstComes(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        let start = Duration.seconds(100)
        var link = LinkLifecycle(phase: random.next() % 2 == 0 ? .connecting : .handshaking, openedAt: start,
                                 direction: random.next() % 2 == 0 ? .outbound : .inbound)
        var now = start
        let steps = Int(random.next() % 6)
        for _ in 0..<steps {
            now += .milliseconds(Int64(random.next() % 1_500))
            switch random.next() % 7 {
            case 0: link.connected()
            case 1: link.establish()
            case 2: link.received(at: now)
            case 3: link.sent(at: now)
            case 4: link.handshakeProgressed(at: now)
            case 5: _ = link.startProbe(ping: MessageID(millis: 1_732_147_200_000, random: (1, 2)), deadline: now + .seconds(1))
            default: link.retire(at: now)
            }
        }
        let queued = random.next() % 3 == 0
        let deadline = link.nextDeadline(hasQueuedOutput: queued, timeouts: Self.timeouts)
        #expect(deadline > now || link.decision(at: now, hasQueuedOutput: queued, timeouts: Self.timeouts) != nil)
        if deadline > now {
            #expect(link.decision(at: deadline - .nanoseconds(1), hasQueuedOutput: queued, timeouts: Self.timeouts) == nil,
                    "woken before anything is due (\(link.phase))")
        }
        #expect(link.decision(at: deadline, hasQueuedOutput: queued, timeouts: Self.timeouts) != nil,
                "nothing due at the planned wake-up (\(link.phase))")
    }

    /// A node with 8 quiet links (4 dialled, 4 accepted, their peers'
    /// timers in random phase) on a LAN of 1,000 nodes sleeps until the next
    /// keepalive or beacon turn: its keepalives fall into step, so it wakes
    /// about once per keepalive interval and for its beacon turns, a few
    /// dozen times a minute where a 250 ms tick woke 240 times; and no link
    /// goes silent.
    @Test(arguments: [1, 2, 3])
    func anIdleNodeWithEightLinksWakesOnlyWhenSomethingIsDue(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        let clock = ManualClock(uptime: .seconds(100))
        struct Pair { var mine: LinkLifecycle; var theirs: LinkLifecycle }
        var pairs: [Pair] = (0..<8).map { index in
            let opened = clock.uptime() - .milliseconds(Int64(random.next() % 2_000))
            let direction: LinkDirection = index < 4 ? .outbound : .inbound
            var mine = LinkLifecycle(phase: .handshaking, openedAt: opened, direction: direction)
            var theirs = LinkLifecycle(phase: .handshaking, openedAt: opened, direction: direction == .outbound ? .inbound : .outbound)
            mine.establish()
            theirs.establish()
            return Pair(mine: mine, theirs: theirs)
        }
        var schedule = BeaconSchedule(policy: BeaconSchedule.Policy(base: .seconds(2)))
        var nextBeacon = clock.uptime() + .seconds(1)
        var wakes = 0
        var pings = 0
        let end = clock.uptime() + .seconds(60)
        while true {
            // The peers' own timers (their pings, answered by us) run in
            // between, as frames that arrive, not as our timer's wake-ups.
            var plan = WakePlan(now: clock.uptime(), busy: Self.busy, longest: P2PService.longestSleep)
            plan.due(nextBeacon)
            for pair in pairs { plan.due(pair.mine.nextDeadline(hasQueuedOutput: false, timeouts: Self.timeouts)) }
            let wake = plan.wake
            let theirs = pairs.indices.map { pairs[$0].theirs.nextDeadline(hasQueuedOutput: false, timeouts: Self.timeouts) }
            if let index = theirs.indices.min(by: { theirs[$0] < theirs[$1] }), theirs[index] < wake {
                let at = theirs[index]
                #expect(pairs[index].theirs.decision(at: at, hasQueuedOutput: false, timeouts: Self.timeouts) == .keepalive)
                pairs[index].theirs.sent(at: at)
                pairs[index].mine.received(at: at)
                pairs[index].mine.sent(at: at)  // the pong
                pairs[index].theirs.received(at: at)
                continue
            }
            guard wake < end else { break }
            clock.advance(by: wake - clock.uptime())
            let now = clock.uptime()
            wakes += 1
            if now >= nextBeacon {
                nextBeacon = schedule.turn(at: now, knownNodes: 1_000, boundedLinks: true, random: Double.random(in: 0..<1, using: &random)) { _ in false }.next
            }
            let early = pairs.contains { $0.mine.decision(at: now, hasQueuedOutput: false, timeouts: Self.timeouts) == .keepalive }
            for index in pairs.indices {
                switch pairs[index].mine.decision(at: now, hasQueuedOutput: false, timeouts: Self.timeouts, early: early) {
                case .keepalive:
                    pings += 1
                    pairs[index].mine.sent(at: now)
                    pairs[index].theirs.received(at: now)
                    pairs[index].theirs.sent(at: now)
                    pairs[index].mine.received(at: now)
                case nil:
                    break
                case let other?:
                    Issue.record("a quiet link's check said \(String(describing: other))")
                }
            }
        }
        // Four dialled links in step: a wake-up every 1.5-2 s, plus the beacon turns (30 s at 1,000 nodes).
        #expect(wakes <= 45, "\(wakes) wake-ups in a minute")
        #expect(wakes >= 30, "\(wakes) wake-ups: the keepalives are due every 2 s")
        #expect(pings <= 4 * 45, "\(pings) pings")
        for pair in pairs {
            #expect(pair.mine.decision(at: clock.uptime(), hasQueuedOutput: false, timeouts: Self.timeouts) != .peerSilent)
        }
    }

    /// Overlay links above the threshold: keepalives twice as far apart
    /// and a dead peer twice as late, but neither end silent for two
    /// thirds of the unstretched dead-peer timeout, so a peer that did not
    /// stretch (it still runs a full mesh) never counts this end dead.
    @Test func stretchedLinksPingLessButNeverPastWhatAnUnstretchedPeerWaits() {
        let stretched = Self.timeouts.stretched(by: P2PService.overlayLinkStretch)
        #expect(stretched.keepalive == .seconds(4))
        #expect(stretched.deadPeer == .seconds(12))
        let dialler = Self.established(.outbound)
        let acceptor = Self.established(.inbound)
        #expect(dialler.keepaliveInterval(stretched) == .seconds(4))
        #expect(acceptor.keepaliveInterval(stretched) == .seconds(4), "not 1.5 times: capped by the peer's patience")
        #expect(acceptor.keepaliveInterval(Self.timeouts) == .seconds(3), "unstretched as before")
        // The command line's tightest: beacons every second, dead after 3 s.
        let tight = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(3), write: .seconds(5), keepalive: .seconds(1))
        let tightStretched = tight.stretched(by: P2PService.overlayLinkStretch)
        for link in [dialler, acceptor] {
            #expect(link.keepaliveInterval(tightStretched) <= .seconds(2))
            #expect(link.keepaliveInterval(tightStretched) >= tight.keepalive)
        }
        // A stretch never shortens anything.
        let wide = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(2), write: .seconds(5), keepalive: .seconds(2))
        #expect(wide.stretched(by: 2).keepalive == .seconds(2))
        // An unstretched dialler streaming data (so it never pings) to a
        // stretched acceptor that has nothing to say: the acceptor's own
        // pings come at most 4 s apart, well inside the dialler's 6 s.
        var streaming = dialler
        var quiet = acceptor
        var lastPing = Duration.seconds(100)
        var now = Duration.seconds(100)
        while now < .seconds(160) {
            now += .milliseconds(50)
            streaming.sent(at: now)
            quiet.received(at: now)
            if quiet.decision(at: now, hasQueuedOutput: false, timeouts: stretched) == .keepalive {
                #expect(now - lastPing <= .seconds(4))
                lastPing = now
                quiet.sent(at: now)
                streaming.received(at: now)
            }
            #expect(streaming.decision(at: now, hasQueuedOutput: false, timeouts: Self.timeouts) != .peerSilent)
        }
        #expect(lastPing > .seconds(155), "the acceptor kept pinging")
    }

    static func established(_ direction: LinkDirection) -> LinkLifecycle {
        var link = LinkLifecycle(phase: .handshaking, openedAt: .seconds(100), direction: direction)
        link.establish()
        return link
    }
}
