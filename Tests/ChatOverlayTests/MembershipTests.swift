import ChatCore
import ChatOverlay
import Testing

/// Membership's views on their own: a small LAN stays a full mesh, a large
/// one gets bounded views, and no single peer can flood its way in.
@Suite struct MembershipTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }
    static let me = number(1)

    @Test func belowTheThresholdEveryPeerHeardIsDialled() {
        var membership = Membership(me: Self.me, seed: 1, now: .zero)
        var dials: [NodeNumber] = []
        for peer in 2...21 {
            for case .dial(let target) in membership.peerHeard(Self.number(peer), now: .milliseconds(peer)) { dials.append(target) }
        }
        #expect(dials == (2...21).map(Self.number))
        #expect(membership.isFullMesh)
    }

    @Test func aboveTheThresholdViewsAreBoundedAndOnlyOnePeerIsAskedToJoin() {
        var membership = Membership(me: Self.me, seed: 1, now: .zero)
        var actions: [OverlayAction] = []
        for peer in 2...201 { actions += membership.peerHeard(Self.number(peer), now: .milliseconds(peer)) }
        #expect(!membership.isFullMesh)
        #expect(membership.passive.count <= OverlayConfig().passiveViewMax)
        let dialsAfterThreshold = actions.compactMap { if case .dial(let peer) = $0 { peer } else { nil } }
        #expect(dialsAfterThreshold.count == OverlayConfig().fullMeshThreshold - 1, "the full mesh's dials, then one JOIN")
        // Every dial comes up and every inbound link asks to be a neighbour: the view stays bounded.
        var now = Duration.seconds(1)
        for peer in dialsAfterThreshold { _ = membership.linkUp(peer, now: now) }
        for peer in 300...400 {
            now += .milliseconds(10)
            _ = membership.linkUp(Self.number(peer), now: now)
            _ = membership.received(.neighbor(highPriority: true), from: Self.number(peer), now: now)
            _ = membership.received(.join, from: Self.number(peer), now: now)
        }
        #expect(membership.active.count <= OverlayConfig().activeViewMax)
        #expect(membership.active.values.filter(\.inbound).count <= OverlayConfig().inboundMax)
        #expect(membership.passive.count <= OverlayConfig().passiveViewMax)
    }

    @Test func aFloodFromOnePeerTakesOneSlotAndStartsOneWalk() {
        var membership = Membership(me: Self.me, seed: 3, now: .zero)
        for peer in 2...100 { _ = membership.peerHeard(Self.number(peer), now: .zero) }
        for peer in 2...9 {  // eight neighbours of our own choosing
            _ = membership.linkUp(Self.number(peer), now: .zero)
        }
        let attacker = Self.number(666)
        _ = membership.linkUp(attacker, now: .seconds(1))
        var walks = 0, evictions = 0, fakes = 0
        for round in 0..<500 {
            let now = Duration.seconds(1) + .milliseconds(round)
            for frame: OverlayFrame in [.join, .neighbor(highPriority: true), .forwardJoin(newNode: attacker, ttl: 16),
                                        .forwardJoin(newNode: Self.number(10_000 + round), ttl: 3),
                                        .shuffle(origin: attacker, ttl: 0, peers: (0..<8).map { Self.number(20_000 + round * 8 + $0) })] {
                for action in membership.received(frame, from: attacker, now: now) {
                    if case .send(.forwardJoin(attacker, _), _) = action { walks += 1 }
                    if case .send(.disconnect, _) = action { evictions += 1 }
                }
            }
        }
        fakes = membership.passive.filter { $0.rawValue >= 10_000 }.count
        #expect(membership.active[attacker] != nil, "it may hold one slot")
        #expect(membership.active.count <= OverlayConfig().activeViewMax)
        #expect(walks <= OverlayConfig().activeViewMax, "one JOIN's walks, however many JOINs: \(walks)")
        #expect(evictions <= 2, "at most the eviction budget: \(evictions)")
        #expect(fakes <= Int(OverlayConfig().controlBurst) * 8 && fakes < OverlayConfig().passiveViewMax,
                "what it can inject is budgeted: \(fakes)")
        #expect(membership.active.values.filter { !$0.inbound }.count >= 7, "our own choices stay: \(membership.active)")
    }

    /// Links made in the full mesh that come up just after the switch to
    /// bounded views (a LAN crossing the threshold) are the first to fill
    /// the view, at the next tick, over the links already up: not closed
    /// as silent inbound links and dialled again (8 real nodes kept views
    /// of one for five seconds that way).
    @Test func linksAlreadyUpFillTheViewFirst() {
        var config = OverlayConfig()
        config.fullMeshThreshold = 3
        config.fullMeshExit = 2
        var membership = Membership(me: Self.me, config: config, seed: 1, now: .zero)
        _ = membership.peerHeard(Self.number(2), now: .zero)
        _ = membership.linkUp(Self.number(2), now: .zero)
        for peer in 3...7 {
            _ = membership.linkUp(Self.number(peer), now: .milliseconds(10))  // dialled in the full mesh
            _ = membership.peerHeard(Self.number(peer), now: .milliseconds(10))
        }
        #expect(!membership.isFullMesh)
        #expect(membership.active.count == 1)
        let dials = membership.tick(now: .milliseconds(600)).compactMap { if case .dial(let peer) = $0 { peer } else { nil } }
        #expect(dials.count == membership.target - 1)
        #expect(dials.allSatisfy { (3...7).map(Self.number).contains($0) })
        // The shell answers a dial over a link that is up at once.
        for peer in dials {
            #expect(membership.linkUp(peer, now: .milliseconds(600)).contains(.send(.neighbor(highPriority: true), to: peer)))
        }
        #expect(membership.active.count == membership.target)
        let closed = membership.tick(now: .seconds(6)).compactMap { if case .close(let peer) = $0 { peer } else { nil } }
        #expect(Set(closed).isDisjoint(with: dials), "none of the view's links is closed as silent")
        #expect(closed.count == 5 - dials.count, "the links it did not take are")
    }

    /// A peer whose view is under its minimum asks with high priority: it is
    /// taken while the hard cap allows, whatever the eviction budget says.
    /// Refused, an asker holds the refuser off for a minute: a node whose
    /// links had all dropped at once was refused by every peer at its target
    /// whose eviction budget earlier requests had spent, and cut off that long.
    @Test func highPriorityNeighboursAreTakenUpToTheHardCapWhateverTheEvictionBudget() {
        var membership = Membership(me: Self.me, seed: 5, now: .zero)
        for peer in 2...100 { _ = membership.peerHeard(Self.number(peer), now: .zero) }
        let target = membership.target
        for peer in 2..<(2 + target) { _ = membership.linkUp(Self.number(peer), now: .zero) }  // our own choices
        #expect(membership.active.count == target && target + 2 == OverlayConfig().activeViewMax)
        func ask(_ asker: NodeNumber, high: Bool = true, at now: Duration) -> Bool {
            _ = membership.linkUp(asker, now: now)
            return membership.received(.neighbor(highPriority: high), from: asker, now: now)
                .contains(.send(.neighborReply(accepted: true), to: asker))
        }
        // Up to the cap, then two more by eviction (the budget's burst): the budget is spent.
        for (index, asker) in (200..<204).map(Self.number).enumerated() {
            #expect(ask(asker, at: .seconds(1) + .milliseconds(index)), "asker \(index)")
        }
        #expect(!ask(Self.number(204), at: .milliseconds(1_010)), "past the cap with no eviction left")
        // Two links drop: the view is back at its target, the budget still spent.
        _ = membership.linkDown(Self.number(2), now: .milliseconds(1_020))
        _ = membership.linkDown(Self.number(3), now: .milliseconds(1_020))
        #expect(membership.active.count == target)
        #expect(ask(Self.number(205), at: .milliseconds(1_030)), "a node with an empty view is taken under the cap")
        // A low-priority request still needs room under the target.
        #expect(!ask(Self.number(300), high: false, at: .milliseconds(1_040)))
        #expect(membership.active.count <= OverlayConfig().activeViewMax)
    }
}
