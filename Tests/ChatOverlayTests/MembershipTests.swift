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

    /// On a large LAN peers stay silent for minutes between beacons: a
    /// node told so keeps counting them, and keeps its bounded views; with
    /// the 60 s default alone it fell back to a full mesh and dialled
    /// everyone it heard (issue 29).
    @Test func peersThatMayBeSilentLongerStayKnown() {
        func settled() -> Overlay {
            var overlay = Overlay(me: Self.me, seed: 1, now: .zero)
            for peer in 2...80 { _ = overlay.peerHeard(Self.number(peer), now: .zero) }
            return overlay
        }
        var told = settled()
        told.peersMayBeSilent(for: .seconds(300))
        var untold = settled()
        #expect(!told.membership.isFullMesh && !untold.membership.isFullMesh)
        for now in [Duration.seconds(120), .seconds(126)] {
            _ = told.tick(now: now)
            _ = untold.tick(now: now)
        }
        #expect(!told.membership.isFullMesh, "79 peers heard 2 minutes ago are still counted")
        #expect(told.membership.knownCount == 79)
        #expect(untold.membership.isFullMesh, "the default forgets them after 60 s")
        #expect(untold.membership.knownCount == 0)
        var shorter = settled()
        shorter.peersMayBeSilent(for: .seconds(5))
        #expect(shorter.membership.knownLifetime == OverlayConfig().knownPeerLifetime, "never below the default")
    }

    /// A node still in a full mesh on a settled LAN hears too few beacons
    /// to count past the threshold, and asks everyone it hears to be a
    /// neighbour: a bounded node that refuses it names peers with the
    /// refusal, and the asker counts them and leaves the full mesh.
    @Test func aRefusalNamesPeersAndTheAskerLeavesTheFullMesh() throws {
        var bounded = Membership(me: Self.number(500), seed: 3, now: .zero)
        for peer in 2...201 { _ = bounded.peerHeard(Self.number(peer), now: .zero) }
        #expect(!bounded.isFullMesh)
        var refusal: [OverlayAction] = []
        for peer in 600...620 {
            _ = bounded.linkUp(Self.number(peer), now: .seconds(1))
            let answer = bounded.received(.neighbor(highPriority: false), from: Self.number(peer), now: .seconds(1))
            if answer.contains(.send(.neighborReply(accepted: false), to: Self.number(peer))) {
                refusal = answer
                break
            }
        }
        let named = try #require(refusal.compactMap { action -> [NodeNumber]? in
            if case .send(.shuffleReply(let peers), _) = action { peers } else { nil }
        }.first)
        #expect(named.count == OverlayConfig().shuffleActive + OverlayConfig().shufflePassive + 1)

        var asker = Membership(me: Self.me, seed: 4, now: .zero)
        for peer in 2...41 { _ = asker.peerHeard(Self.number(1_000 + peer), now: .zero) }
        #expect(asker.isFullMesh)
        // It hears the bounded node, dials it and asks (NEIGHBOR, low).
        #expect(asker.peerHeard(Self.number(500), now: .seconds(1)).contains(.dial(Self.number(500))))
        #expect(asker.linkUp(Self.number(500), now: .seconds(1)).contains(.send(.neighbor(highPriority: false), to: Self.number(500))))
        _ = asker.received(.shuffleReply(peers: named), from: Self.number(500), now: .seconds(1))
        _ = asker.received(.neighborReply(accepted: false), from: Self.number(500), now: .seconds(1))
        _ = asker.tick(now: .seconds(2))
        #expect(asker.knownCount >= OverlayConfig().fullMeshThreshold - 1, "41 heard, the refuser and the peers it named")
        #expect(!asker.isFullMesh)

        // Names nobody asked for are candidates, not counted: a linked peer
        // could invent 8 a frame.
        var unasked = Membership(me: Self.me, seed: 5, now: .zero)
        for peer in 2...41 { _ = unasked.peerHeard(Self.number(1_000 + peer), now: .zero) }
        _ = unasked.linkUp(Self.number(500), now: .seconds(1))
        let before = unasked.knownCount
        _ = unasked.received(.shuffleReply(peers: named), from: Self.number(500), now: .seconds(1))
        _ = unasked.received(.shuffle(origin: Self.number(500), ttl: 0, peers: (700...707).map(Self.number)), from: Self.number(500), now: .seconds(1))
        _ = unasked.tick(now: .seconds(2))
        #expect(unasked.knownCount == before + 1, "only the linked peer itself")
        #expect(unasked.isFullMesh)
    }

    /// Bounded peers with room take a full-mesh node's requests: the names
    /// come with the yes too, or a late joiner that every peer took stayed
    /// in a full mesh of 41 links on a LAN of 300 (it knew 42 nodes).
    @Test func anAcceptanceNamesPeersAndTheAskerLeavesTheFullMesh() throws {
        var bounded = Membership(me: Self.number(500), seed: 3, now: .zero)
        for peer in 2...201 { _ = bounded.peerHeard(Self.number(peer), now: .zero) }
        #expect(!bounded.isFullMesh)
        #expect(bounded.active.count < OverlayConfig().activeViewMax)
        _ = bounded.linkUp(Self.me, now: .seconds(1))
        let answer = bounded.received(.neighbor(highPriority: false), from: Self.me, now: .seconds(1))
        let named = try #require(answer.compactMap { action -> [NodeNumber]? in
            if case .send(.shuffleReply(let peers), _) = action { peers } else { nil }
        }.first)
        let yes = try #require(answer.firstIndex(of: .send(.neighborReply(accepted: true), to: Self.me)))
        #expect(answer.firstIndex { if case .send(.shuffleReply, _) = $0 { true } else { false } }! < yes, "the names before the answer")
        #expect(named.count == OverlayConfig().shuffleActive + OverlayConfig().shufflePassive + 1)
        #expect(!named.contains(Self.me))

        var asker = Membership(me: Self.me, seed: 4, now: .zero)
        for peer in 2...41 { _ = asker.peerHeard(Self.number(1_000 + peer), now: .zero) }
        #expect(asker.peerHeard(Self.number(500), now: .seconds(1)).contains(.dial(Self.number(500))))
        _ = asker.linkUp(Self.number(500), now: .seconds(1))
        _ = asker.received(.shuffleReply(peers: named), from: Self.number(500), now: .seconds(1))
        _ = asker.received(.neighborReply(accepted: true), from: Self.number(500), now: .seconds(1))
        _ = asker.tick(now: .seconds(2))
        #expect(asker.knownCount >= OverlayConfig().fullMeshThreshold - 1, "41 heard, the peer that took it and the peers it named")
        #expect(!asker.isFullMesh)
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
        let closed = membership.tick(now: config.inboundGrace + .seconds(1)).compactMap { if case .close(let peer) = $0 { peer } else { nil } }
        #expect(Set(closed).isDisjoint(with: dials), "none of the view's links is closed as silent")
        #expect(closed.count == 5 - dials.count, "the links it did not take are")
    }

    /// A view at its target still takes a neighbour that asks with low
    /// priority, up to its cap; past the cap it says no. (At the target, the
    /// nodes still under theirs found every view closed and redialled others
    /// every tick.)
    /// 100 peers heard, then a JOIN and a fill from the passive view: a
    /// view at its target, all of our own choosing; and the time it was made.
    static func viewAtTarget() -> (Membership, Duration) {
        var membership = Membership(me: Self.me, seed: 5, now: .zero)
        for peer in 2...101 { _ = membership.peerHeard(Self.number(peer), now: .zero) }
        #expect(!membership.isFullMesh)
        // The full mesh's dials time out; the tick then asks one passive peer to JOIN.
        var now = OverlayConfig().linkDialTimeout + .seconds(1)
        let contact = membership.tick(now: now).compactMap { if case .dial(let peer) = $0 { peer } else { nil } }
        #expect(contact.count == 1)
        _ = membership.linkUp(contact[0], now: now)
        // Fills from the passive view, all ours, up to the target.
        now += .seconds(1)
        for case .dial(let peer) in membership.tick(now: now) { _ = membership.linkUp(peer, now: now) }
        #expect(membership.active.count == membership.target)
        return (membership, now)
    }

    @Test func aLowPriorityNeighbourIsTakenWhileTheViewIsUnderItsCap() {
        let config = OverlayConfig()
        var (membership, now) = Self.viewAtTarget()
        #expect(membership.target < config.activeViewMax)
        var replies: [Bool] = []
        for peer in 300..<(300 + config.activeViewMax) {
            now += .milliseconds(10)
            _ = membership.linkUp(Self.number(peer), now: now)
            for case .send(.neighborReply(let accepted), Self.number(peer)) in membership.received(.neighbor(highPriority: false), from: Self.number(peer), now: now) {
                replies.append(accepted)
            }
        }
        let room = config.activeViewMax - membership.target
        #expect(replies == Array(repeating: true, count: room) + Array(repeating: false, count: config.activeViewMax - room))
        #expect(membership.active.count == config.activeViewMax)
    }

    /// A link that belongs to no view, dial or wait (here: a neighbour
    /// refused because the view is full) gets an inbound link's grace, then
    /// is closed; before, such links stayed open for good.
    @Test func aLinkNoViewKeepsIsClosedAfterTheGrace() {
        let config = OverlayConfig()
        var (membership, now) = Self.viewAtTarget()
        for peer in 300..<(300 + config.activeViewMax - membership.active.count) {
            _ = membership.linkUp(Self.number(peer), now: now)
            _ = membership.received(.neighbor(highPriority: false), from: Self.number(peer), now: now)
        }
        #expect(membership.active.count == config.activeViewMax)
        let stray = Self.number(400)
        _ = membership.linkUp(stray, now: now)
        let refused = membership.received(.neighbor(highPriority: false), from: stray, now: now)
        #expect(refused.contains(.send(.neighborReply(accepted: false), to: stray)))
        #expect(!refused.contains(.close(stray)), "the asker closes a refused link, if it still has it")
        now += config.membershipTick
        #expect(!membership.tick(now: now).contains(.close(stray)), "within the grace")
        now += config.inboundGrace + config.membershipTick
        #expect(membership.tick(now: now).contains(.close(stray)))
        #expect(membership.active.count == config.activeViewMax, "the view's own links stay")
    }

    /// A view under its target but at its minimum or above asks again after
    /// a refusal only once `fillRetry` has passed, doubling with each
    /// refusal in a row; under the minimum it asks at every tick.
    @Test func aRefusedFillWaitsLongerEachTime() {
        let config = OverlayConfig()
        var (membership, now) = Self.viewAtTarget()
        // One short of the target: a fill at once.
        var pending: [NodeNumber] = []
        for case .dial(let peer) in membership.linkDown(membership.activePeers[0], now: now) { pending.append(peer) }
        var asked: [Duration] = []
        let end = now + .seconds(20)
        while now < end {
            for peer in pending {
                asked.append(now)
                _ = membership.linkUp(peer, now: now)
                _ = membership.received(.neighborReply(accepted: false), from: peer, now: now)
            }
            pending.removeAll()
            now += config.membershipTick
            for case .dial(let peer) in membership.tick(now: now) { pending.append(peer) }
        }
        // Refused at once, then asked again 1, 2, 4, 8 s later (a tick late at most each time).
        #expect(asked.count == 5, "\(asked)")
        for (wait, (earlier, later)) in zip([1.0, 2, 4, 8], zip(asked, asked.dropFirst())) {
            let gap = (later - earlier) / .seconds(1)
            #expect(gap >= wait && gap <= wait + 0.5, "\(asked)")
        }
        #expect(membership.active.count == membership.target - 1)
        // Under the minimum: no waiting (the backoff holds the fills above it).
        var dialled: [Bool] = []
        while membership.active.count >= config.activeViewMin {
            // Peers that leave (a lost one is dialled again first: `MembershipRedialTests`).
            let peer = membership.activePeers[0]
            let actions = membership.received(.disconnect, from: peer, now: now) + membership.linkDown(peer, now: now)
            dialled.append(actions.contains { if case .dial = $0 { true } else { false } })
        }
        #expect(dialled.last == true && dialled.dropLast().allSatisfy { !$0 }, "\(dialled)")
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
        #expect(membership.active.count <= OverlayConfig().activeViewMax)
    }
}
