import ChatCore
import ChatOverlay
import Testing

/// The overlay's timer is deadline-based (`Membership.nextDeadline`,
/// `Overlay.nextTick`): an idle node wakes when something is due, not
/// every `membershipTick`. Pure, on a manual timeline: no tick before the
/// deadline would have done anything, and a tick at it leaves the next
/// deadline later (no spin).
@Suite struct MembershipDeadlineTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }
    static let me = number(1)

    /// Wakes of a node left alone for a minute, each at `nextTick`.
    static func idleWakes(_ overlay: inout Overlay, from start: Duration, for span: Duration) -> Int {
        var now = start, wakes = 0
        while true {
            now = max(overlay.nextTick(after: now), now + .nanoseconds(1))
            guard now < start + span else { return wakes }
            wakes += 1
            _ = overlay.tick(now: now)
        }
    }

    @Test func anIdleFullMeshWakesForHousekeepingOnly() {
        var overlay = Overlay(me: Self.me, seed: 3, now: .zero)
        for peer in 2...6 {
            _ = overlay.peerHeard(Self.number(peer), now: .zero)
            _ = overlay.linkUp(Self.number(peer), now: .zero)
        }
        #expect(overlay.membership.active.count == 5)
        let wakes = Self.idleWakes(&overlay, from: .zero, for: .seconds(60))
        // Every 5 s (expiry), where a 500 ms tick woke 120 times.
        #expect(wakes <= 12, "\(wakes) wake-ups in an idle minute")
        #expect(overlay.membership.active.count == 5, "nothing changed while it slept")
    }

    @Test func anIdlePartialViewWakesForShufflesAndHousekeeping() {
        var overlay = Overlay(me: Self.me, seed: 5, now: .zero)
        for peer in 2...80 { _ = overlay.peerHeard(Self.number(peer), now: .zero) }
        // Settle the view: every dial answered at once, every request
        // accepted (the full mesh's unanswered dials wait `linkDialTimeout`).
        var now = Duration.zero
        for _ in 0..<30 {
            now += .milliseconds(500)
            var actions = overlay.tick(now: now)
            while let action = actions.popLast() {
                if case .dial(let peer) = action {
                    actions += overlay.linkUp(peer, now: now)
                    actions += overlay.received(.neighborReply(accepted: true), from: peer, now: now) { _ in true }
                }
            }
        }
        #expect(overlay.membership.active.count >= OverlayConfig().activeViewMin)
        let wakes = Self.idleWakes(&overlay, from: now, for: .seconds(60))
        #expect(wakes <= 13, "\(wakes) wake-ups in an idle minute (shuffles every 10 s, expiry every 5 s)")
        #expect(wakes >= 6, "a shuffle every 10 s still runs")
    }

    /// After any history of inputs: no tick before `nextDeadline` does
    /// anything (no wake-up missed), and a tick at it moves the deadline on.
    @Test(arguments: 0..<120)
    func nothingIsDueBeforeTheDeadlineAndATickAtItMovesItOn(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        var membership = Membership(me: Self.me, seed: UInt64(seed), now: .zero)
        let peers = 2 + Int(random.next() % 90)  // either side of the full-mesh threshold
        var now = Duration.zero
        var dialled: [NodeNumber] = [], linked: [NodeNumber] = []
        func note(_ actions: [OverlayAction]) {
            for case .dial(let peer) in actions { dialled.append(peer) }
        }
        for _ in 0..<(20 + Int(random.next() % 60)) {
            now += .milliseconds(Int64(random.next() % 700))  // under a minute in all: no cooldown runs out
            let peer = Self.number(2 + Int(random.next() % UInt64(peers)))
            switch random.next() % 8 {
            case 0, 1: note(membership.peerHeard(peer, now: now))
            case 2:
                if let asked = dialled.popLast() {
                    note(membership.linkUp(asked, now: now))
                    linked.append(asked)
                }
            case 3: if let asked = dialled.popLast() { note(membership.linkDown(asked, now: now)) }
            case 4:
                if let peer = linked.randomElement(using: &random) {
                    note(membership.received(.neighborReply(accepted: random.next() % 3 != 0), from: peer, now: now))
                }
            case 5:
                note(membership.linkUp(peer, now: now))  // an inbound link
                linked.append(peer)
                if random.next() % 2 == 0 { note(membership.received(.neighbor(highPriority: false), from: peer, now: now)) }
            case 6: if let peer = linked.popLast() { note(membership.linkDown(peer, now: now)) }
            default: note(membership.tick(now: now))
            }
        }
        let deadline = membership.nextDeadline(now: now)
        #expect(deadline <= now + .seconds(10), "housekeeping and shuffles bound the sleep")
        if deadline > now {
            var t = now + .milliseconds(1)
            while t < deadline {
                var copy = membership
                #expect(copy.tick(now: t).isEmpty, "a tick at \(t) acts before the deadline \(deadline)")
                t += .milliseconds(97)
            }
        }
        var ticked = membership
        let at = max(deadline, now)
        _ = ticked.tick(now: at)
        #expect(ticked.nextDeadline(now: at) > at, "a tick settles what was due: no spin")
    }
}
