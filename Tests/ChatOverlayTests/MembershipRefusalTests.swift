import ChatCore
import ChatOverlay
import Testing

/// A peer that said no (a refused NEIGHBOR, a DISCONNECT in a full mesh) is
/// not dialled again for the cooldown but is taken if it asks; a peer
/// scored down is neither dialled nor taken. Holding both off alike cut
/// small groups in two for a minute: each side refused the other.
@Suite struct MembershipRefusalTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }
    static let me = number(1)

    static func dials(_ actions: [OverlayAction]) -> [NodeNumber] {
        actions.compactMap { if case .dial(let peer) = $0 { peer } else { nil } }
    }

    @Test func aPeerThatDisconnectedInAFullMeshIsNotRedialledButIsTakenWhenItAsks() {
        let config = OverlayConfig()
        var membership = Membership(me: Self.me, seed: 1, now: .zero)
        let peer = Self.number(2)
        #expect(Self.dials(membership.peerHeard(peer, now: .zero)) == [peer])
        _ = membership.linkUp(peer, now: .zero)
        #expect(membership.active[peer] != nil)
        var now = Duration.seconds(1)
        #expect(membership.received(.disconnect, from: peer, now: now).contains(.close(peer)))
        _ = membership.linkDown(peer, now: now)
        now += .seconds(1)
        #expect(Self.dials(membership.peerHeard(peer, now: now)).isEmpty, "declined: not dialled within the cooldown")
        _ = membership.linkUp(peer, now: now)
        let reply = membership.received(.neighbor(highPriority: false), from: peer, now: now)
        #expect(reply.contains(.send(.neighborReply(accepted: true), to: peer)), "but taken when it asks: \(reply)")
        #expect(membership.active[peer] != nil)
        // After the cooldown it is dialled again like anyone.
        _ = membership.received(.disconnect, from: peer, now: now)
        _ = membership.linkDown(peer, now: now)
        now += config.cooldown + .seconds(1)
        _ = membership.tick(now: now)
        #expect(Self.dials(membership.peerHeard(peer, now: now)) == [peer])
    }

    @Test func aRefusedNeighbourIsNotAskedAgainButIsTakenWhenItAsks() {
        let config = OverlayConfig()
        var membership = Membership(me: Self.me, seed: 5, now: .zero)
        for peer in 2...101 { _ = membership.peerHeard(Self.number(peer), now: .zero) }
        var now = OverlayConfig().linkDialTimeout + .seconds(1)  // the full mesh's dials time out
        let contact = Self.dials(membership.tick(now: now))
        #expect(contact.count == 1)
        _ = membership.linkUp(contact[0], now: now)
        // The first fill: every peer asked says no.
        now += .seconds(1)
        let refusers = Self.dials(membership.tick(now: now))
        #expect(!refusers.isEmpty)
        for peer in refusers {
            _ = membership.linkUp(peer, now: now)
            let out = membership.received(.neighborReply(accepted: false), from: peer, now: now)
            #expect(out.contains(.close(peer)))
            _ = membership.linkDown(peer, now: now)
        }
        // Fills within the cooldown ask others.
        var asked: Set<NodeNumber> = []
        for _ in 0..<40 {
            now += config.membershipTick
            for peer in Self.dials(membership.tick(now: now)) {
                asked.insert(peer)
                _ = membership.linkDown(peer, now: now)  // the dial fails: the next tick asks again
            }
        }
        #expect(!asked.isEmpty)
        #expect(asked.isDisjoint(with: refusers), "a peer that said no is not asked again within the cooldown")
        // A refuser that asks is taken (the view is under its cap).
        let refuser = refusers[0]
        _ = membership.linkUp(refuser, now: now)
        let reply = membership.received(.neighbor(highPriority: false), from: refuser, now: now)
        #expect(reply.contains(.send(.neighborReply(accepted: true), to: refuser)))
    }

    @Test func aJoinRefusedByTheOnlyContactEmptiesTheViewAndJoinsAnotherAtOnce() {
        var membership = Membership(me: Self.me, seed: 7, now: .zero)
        for peer in 2...101 { _ = membership.peerHeard(Self.number(peer), now: .zero) }
        var now = OverlayConfig().linkDialTimeout + .seconds(1)  // the full mesh's dials time out
        let contact = Self.dials(membership.tick(now: now))
        #expect(contact.count == 1)
        #expect(membership.linkUp(contact[0], now: now).contains(.send(.join, to: contact[0])))
        #expect(membership.active.count == 1)
        // The contact has this node held off: it says no.
        _ = membership.received(.neighborReply(accepted: false), from: contact[0], now: now)
        _ = membership.linkDown(contact[0], now: now)
        #expect(membership.active.isEmpty)
        now += OverlayConfig().membershipTick
        let next = Self.dials(membership.tick(now: now))
        #expect(next.count >= 1 && !next.contains(contact[0]), "another contact is asked: \(next)")
        #expect(membership.linkUp(next[0], now: now).contains(.send(.join, to: next[0])))
    }
}
