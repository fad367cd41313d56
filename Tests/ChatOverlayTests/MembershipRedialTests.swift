import ChatCore
import ChatOverlay
import Testing

/// Churn under load (issue 29): an active peer whose link is lost without
/// a DISCONNECT is dialled again once before the view replaces it; a peer
/// that left, or a second loss within the window, is replaced as before.
@Suite struct MembershipRedialTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }

    /// A partial membership whose view was filled from its passive view
    /// (as `MembershipTests.viewAtTarget`); the time it was made.
    static func settled() -> Membership {
        var membership = Membership(me: number(1), seed: 7, now: .zero)
        for peer in 2...101 { _ = membership.peerHeard(number(peer), now: .zero) }
        var now = OverlayConfig().linkDialTimeout + .seconds(1)
        for case .dial(let peer) in membership.tick(now: now) { _ = membership.linkUp(peer, now: now) }
        now += .seconds(1)
        for case .dial(let peer) in membership.tick(now: now) { _ = membership.linkUp(peer, now: now) }
        #expect(membership.active.count == membership.target)
        return membership
    }

    static func dials(_ actions: [OverlayAction]) -> [NodeNumber] {
        actions.compactMap { if case .dial(let peer) = $0 { peer } else { nil } }
    }

    @Test func aLostPeerIsDialledAgainBeforeItIsReplaced() {
        var membership = Self.settled()
        #expect(!membership.isFullMesh)
        let lost = membership.activePeers[0]
        #expect(Self.dials(membership.linkDown(lost, now: .seconds(20))) == [lost], "the same peer, nobody else")
        // It comes back: the view is whole again, nobody was replaced.
        _ = membership.linkUp(lost, now: .seconds(21))
        #expect(membership.active[lost] != nil)
        // Lost again within the window: replaced from the passive view.
        let again = Self.dials(membership.linkDown(lost, now: .seconds(40)))
        #expect(!again.isEmpty && !again.contains(lost))
    }

    @Test func aFailedRedialIsReplacedAtOnce() {
        var membership = Self.settled()
        let lost = membership.activePeers[0]
        #expect(Self.dials(membership.linkDown(lost, now: .seconds(20))) == [lost])
        let replacements = Self.dials(membership.linkDown(lost, now: .seconds(20) + .milliseconds(5)))
        #expect(!replacements.isEmpty && !replacements.contains(lost))
    }

    @Test func aPeerThatLeftIsReplacedNotRedialled() {
        var membership = Self.settled()
        let left = membership.activePeers[0]
        let replaced = Self.dials(membership.received(.disconnect, from: left, now: .seconds(20)))
        #expect(!replaced.isEmpty, "the view fills at once")
        #expect(!Self.dials(membership.linkDown(left, now: .seconds(20))).contains(left), "and the link's end redials nobody")
    }
}
