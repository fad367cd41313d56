import ChatCore
@testable import ChatOverlay
import TestSupport
import Testing

/// Hostile peers against membership: numbers named in walks, JOINs from
/// many identities, an asker refused and asking again, and walks started
/// in another node's name.
@Suite struct MembershipAbuseTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }
    static let me = number(1)

    /// A full mesh of 20: a linked peer naming invented joiners in walks,
    /// within its budget, does not tip the node into bounded views.
    @Test func numbersNamedInWalksDoNotCountInAFullMesh() {
        var membership = Membership(me: Self.me, seed: 1, now: .zero)
        for peer in 2...21 {
            _ = membership.peerHeard(Self.number(peer), now: .zero)
            _ = membership.linkUp(Self.number(peer), now: .zero)
        }
        let known = membership.knownCount
        for round in 0..<200 {
            let now = Duration.milliseconds(500 * round)
            _ = membership.received(.forwardJoin(newNode: Self.number(10_000 + round), ttl: 3), from: Self.number(2), now: now)
            _ = membership.tick(now: now)
        }
        #expect(membership.isFullMesh)
        #expect(membership.knownCount == known)
    }

    /// Inbound slots full: each new identity's JOIN would evict an honest
    /// asker; only the JOIN eviction budget's worth do, the rest are refused
    /// (and still introduced by walks).
    @Test func joinsPastAFullViewSpendTheEvictionBudget() {
        let config = OverlayConfig()
        var (membership, now) = MembershipTests.viewAtTarget()
        let honest = (300..<(300 + config.inboundMax)).map(Self.number)
        for peer in honest {
            _ = membership.linkUp(peer, now: now)
            _ = membership.received(.neighbor(highPriority: false), from: peer, now: now)
        }
        let admitted = Set(membership.active.keys)
        var refusals = 0
        for sybil in 500..<540 {
            now += .milliseconds(50)
            _ = membership.linkUp(Self.number(sybil), now: now)
            refusals += membership.received(.join, from: Self.number(sybil), now: now)
                .count { $0 == .send(.neighborReply(accepted: false), to: Self.number(sybil)) }
        }
        let evicted = admitted.subtracting(membership.active.keys)
        #expect(evicted.count <= Int(config.joinEvictionBurst) + 1, "8 at once, then 1 per 2 s: \(evicted.count)")
        #expect(refusals >= 40 - Int(config.joinEvictionBurst) - 1)
    }

    /// An asker refused (the inbound slots are full) that asks again every
    /// 7 s keeps its first grace (its link is closed 8 s after it first
    /// asked), and while its link is up no fill takes it first for that
    /// link, though the view keeps losing peers: it cannot ride into a slot
    /// kept for the node's own choices. (Later it is a passive candidate
    /// like any other.)
    @Test func aRefusedAskerIsNeitherKeptLinkedNorChosen() {
        var config = OverlayConfig()
        config.inboundMax = 2
        config.knownPeerLifetime = .seconds(300)  // the 100 heard stay known: bounded views throughout
        var membership = Membership(me: Self.me, config: config, seed: 5, now: .zero)
        for peer in 2...101 { _ = membership.peerHeard(Self.number(peer), now: .zero) }
        var now = config.linkDialTimeout + .seconds(1)
        for case .dial(let peer) in membership.tick(now: now) { _ = membership.linkUp(peer, now: now) }
        now += .seconds(1)
        for case .dial(let peer) in membership.tick(now: now) { _ = membership.linkUp(peer, now: now) }
        for peer in 300..<302 {
            _ = membership.linkUp(Self.number(peer), now: now)
            _ = membership.received(.neighbor(highPriority: false), from: Self.number(peer), now: now)
        }
        #expect(membership.active.values.filter(\.inbound).count == config.inboundMax)
        let asker = Self.number(666)
        _ = membership.linkUp(asker, now: now)
        let start = now
        var closedAt: Duration?
        var chosen = false
        var step = 0
        while now < start + .seconds(30) {
            if closedAt == nil, step % 14 == 0 {
                let answer = membership.received(.neighbor(highPriority: false), from: asker, now: now)
                #expect(answer.contains(.send(.neighborReply(accepted: false), to: asker)))
            }
            // An outbound peer is lost every 5 s, so the view fills again.
            if step % 10 == 5, let lost = membership.active.filter({ !$0.value.inbound }).keys.sorted().first {
                _ = membership.linkDown(lost, now: now)
            }
            for action in membership.tick(now: now) {
                if action == .close(asker), closedAt == nil {
                    closedAt = now
                    _ = membership.linkDown(asker, now: now)
                }
                if action == .dial(asker), closedAt == nil { chosen = true }
                if case .dial(let peer) = action, peer != asker { _ = membership.linkUp(peer, now: now) }
            }
            now += .milliseconds(500)
            step += 1
        }
        #expect(closedAt.map { $0 - start <= config.inboundGrace + .seconds(1) } == true, "closed at \(String(describing: closedAt))")
        #expect(!chosen, "a fill chose the refused asker while its link was up")
    }

    /// Shuffles naming another peer as their origin, ending here at once:
    /// the answers this node sends that origin stay within half of what the
    /// origin lets it send, so the origin never scores it down.
    @Test func answersToWalksInAnotherNodesNameStayWithinBudget() {
        let config = OverlayConfig()
        var (membership, now) = MembershipTests.viewAtTarget()
        let origin = membership.active.keys.sorted()[0]
        let attackers = (700..<704).map(Self.number)
        for attacker in attackers {
            _ = membership.linkUp(attacker, now: now)
            _ = membership.received(.neighbor(highPriority: false), from: attacker, now: now)
        }
        let start = now
        var toOrigin = 0
        for _ in 0..<200 {
            now += .milliseconds(50)
            for attacker in attackers {
                for case .send(.shuffleReply, origin) in membership.received(.shuffle(origin: origin, ttl: 0, peers: [attacker]),
                                                                              from: attacker, now: now) {
                    toOrigin += 1
                }
            }
        }
        let allowed = config.controlBurst / 2 + config.controlPerSecond / 2 * (now - start).seconds
        #expect(Double(toOrigin) <= allowed, "\(toOrigin) answers in \(now - start), half the origin's budget is \(allowed)")
        #expect(toOrigin > 0)
        #expect(membership.relaysDropped > 0)
    }
}

/// A neighbour announcing ids it never sends.
@Suite struct MissingTableAbuseTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }

    static func id(_ index: Int) -> MessageID {
        MessageID(millis: 1_732_147_200_000 + Int64(index), random: (7, UInt64(index)))
    }

    /// One neighbour's IHAVEs make at most a quarter of the missing table;
    /// another neighbour's announcement is still heard and grafted.
    @Test func oneNeighboursAnnouncementsTakeAQuarterOfTheMissingTable() {
        let config = OverlayConfig()
        var overlay = BroadcastTests.overlay()
        let liar = Self.number(2), honest = Self.number(3)
        var now = Duration.seconds(1)
        var index = 0
        while index < config.missingMax {
            let ids = (index..<(index + config.idsPerFrame)).map(Self.id)
            _ = overlay.received(.ihave(ids), from: liar, now: now) { _ in true }
            index += config.idsPerFrame
            now += .milliseconds(100)
        }
        #expect(overlay.broadcast.missing.count == config.missingMax / 4)
        let real = Self.id(1_000_000)
        _ = overlay.received(.ihave([real]), from: honest, now: now) { _ in true }
        #expect(overlay.broadcast.missing[real] != nil)
        let grafts = overlay.tick(now: now + config.graftTimeoutMax + .milliseconds(1))
        #expect(grafts.contains { if case .send(.graft(let ids), honest) = $0 { ids.contains(real) } else { false } })
    }
}
