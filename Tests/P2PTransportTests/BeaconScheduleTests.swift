import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// The periodic beacons' schedule (issue 29): a small LAN as before, the
/// interval growing with the LAN past 20 nodes, redundant beacons skipped
/// once settled, never when someone may not know the node.
@Suite struct BeaconScheduleTests {
    private let policy = BeaconSchedule.Policy(base: .seconds(2))
    private let newcomer = TestNetwork.key(29_001).nodeNumber
    private let other = TestNetwork.key(29_002).nodeNumber

    /// A schedule past its newcomer turns (each heard plenty), on `clock`.
    private func settled(_ clock: ManualClock, knownNodes: Int = 1_000) -> BeaconSchedule {
        var schedule = BeaconSchedule(policy: policy)
        for _ in 0..<policy.newcomerTurns {
            schedule.heardLinked(count: 100)
            #expect(schedule.turn(at: clock.uptime(), knownNodes: knownNodes, random: 0.5) { _ in true }.send)
            clock.advance(by: .seconds(30))
        }
        return schedule
    }

    @Test func aSmallLANKeepsTheFixedIntervalAndSkipsNothing() {
        let clock = ManualClock()
        var schedule = BeaconSchedule(policy: policy)
        for known in 1...20 { #expect(schedule.interval(knownNodes: known) == .seconds(2)) }
        for _ in 0..<10 {
            schedule.heardLinked(count: 50)
            let turn = schedule.turn(at: clock.uptime(), knownNodes: 20, random: 0.5) { _ in true }
            #expect(turn.send)
            #expect(turn.next == clock.uptime() + .seconds(2))
            clock.advance(by: .seconds(2))
        }
        #expect(schedule.skipped == 0)
    }

    @Test func theIntervalGrowsWithTheLANUpToItsCap() {
        let schedule = BeaconSchedule(policy: policy)
        func near(_ a: Duration, _ b: Duration) -> Bool { abs((a - b) / .seconds(1)) < 1e-6 }
        #expect(near(schedule.interval(knownNodes: 21), .milliseconds(2_100)))
        #expect(near(schedule.interval(knownNodes: 40), .seconds(4)))
        #expect(near(schedule.interval(knownNodes: 100), .seconds(10)))
        #expect(near(schedule.interval(knownNodes: 300), .seconds(30)))
        #expect(near(schedule.interval(knownNodes: 10_000), .seconds(30)))
        #expect(near(schedule.maxSilence(knownNodes: 100), .seconds(100)))
        #expect(near(schedule.maxSilence(knownNodes: 10_000), .seconds(8_000)))
    }

    @Test func eachWaitIsJitteredTwentyPercent() {
        var schedule = BeaconSchedule(policy: policy)
        let low = schedule.turn(at: .seconds(5), knownNodes: 100, random: 0) { _ in true }
        let high = schedule.turn(at: .seconds(5), knownNodes: 100, random: 0.999_999) { _ in true }
        #expect(abs((low.next - .seconds(13)) / .seconds(1)) < 1e-6)
        #expect(abs((high.next - .seconds(17)) / .seconds(1)) < 1e-3)
    }

    @Test func theFixedPolicyIsTheOldSchedule() {
        var fixed = policy
        fixed.adaptive = false
        var schedule = BeaconSchedule(policy: fixed)
        for turn in 0..<10 {
            schedule.heardLinked(count: 500)
            #expect(schedule.turn(at: .seconds(Int64(turn * 2)), knownNodes: 1_000, random: 0.5) { _ in true }.send)
        }
        #expect(schedule.interval(knownNodes: 1_000) == .seconds(2))
    }

    @Test func aNewcomerSendsItsFirstTurnsWhateverItHears() {
        let clock = ManualClock()
        var schedule = settled(clock)
        #expect(schedule.turns == policy.newcomerTurns)
        schedule.heardLinked(count: policy.redundancy)
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
        #expect(schedule.skipped == 1)
    }

    @Test func aSettledNodeSkipsOnlyOnceEnoughLinkedPeersWereHeard() {
        let clock = ManualClock()
        var schedule = settled(clock)
        schedule.heardLinked(count: policy.redundancy - 1)
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
        clock.advance(by: .seconds(30))
        schedule.heardLinked(count: policy.redundancy)
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
        // The count starts over each turn.
        clock.advance(by: .seconds(30))
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
    }

    /// The newcomer case: a node that heard a beacon from a node with no
    /// link to it sends at its turn, unless that node is linked by then
    /// (it was answered or dialled at once, so nobody's beacon is needed).
    @Test func anUnlinkedNodeHeardKeepsTheNextTurnUnlessItLinkedMeanwhile() {
        let clock = ManualClock()
        var schedule = settled(clock)
        schedule.heardLinked(count: 100)
        schedule.heardUnlinked(newcomer)
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { $0 != newcomer }.send)
        clock.advance(by: .seconds(30))
        schedule.heardLinked(count: 100)
        schedule.heardUnlinked(newcomer)
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
        // At the link cap, an unlinked node gets nothing from our beacon.
        clock.advance(by: .seconds(30))
        schedule.heardLinked(count: 100)
        schedule.heardUnlinked(other)
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, canLinkMore: false, random: 0.5) { _ in false }.send)
    }

    /// With bounded links (the overlay above its threshold) the node links
    /// to few of those it hears: their beacons count toward the redundancy
    /// and do not keep its turn; with a full mesh they do neither.
    @Test func withBoundedLinksEveryBeaconHeardCountsAndUnlinkedNodesKeepNoTurn() {
        let clock = ManualClock()
        var schedule = settled(clock)
        for seed in 0..<UInt64(policy.redundancy) { schedule.heardUnlinked(TestNetwork.key(29_200 + seed).nodeNumber) }
        #expect(schedule.unlinkedBeacons == policy.redundancy)
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, boundedLinks: true, random: 0.5) { _ in false }.send)
        #expect(schedule.unlinkedBeacons == 0, "the count starts over each turn")
        clock.advance(by: .seconds(30))
        // One short of the redundancy: it sends.
        schedule.heardLinked(count: 1)
        for seed in 0..<UInt64(policy.redundancy - 2) { schedule.heardUnlinked(TestNetwork.key(29_200 + seed).nodeNumber) }
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, boundedLinks: true, random: 0.5) { _ in false }.send)
        // The same beacons with every link kept (full mesh): the unlinked keep the turn.
        clock.advance(by: .seconds(30))
        for seed in 0..<UInt64(policy.redundancy) { schedule.heardUnlinked(TestNetwork.key(29_200 + seed).nodeNumber) }
        schedule.heardLinked(count: policy.redundancy)
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in false }.send)
        // With bounded links a lost link keeps the turn only when it left
        // the node short of links: the overlay repairs the rest itself.
        clock.advance(by: .seconds(30))
        for seed in 0..<UInt64(policy.redundancy) { schedule.heardUnlinked(TestNetwork.key(29_200 + seed).nodeNumber) }
        schedule.linkLost()
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, boundedLinks: true, links: policy.newcomerLinks,
                               random: 0.5) { _ in false }.send)
        clock.advance(by: .seconds(30))
        for seed in 0..<UInt64(policy.redundancy) { schedule.heardUnlinked(TestNetwork.key(29_200 + seed).nodeNumber) }
        schedule.linkLost()
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, boundedLinks: true, links: policy.newcomerLinks - 1,
                              random: 0.5) { _ in false }.send)
    }

    @Test func tooManyUnlinkedNodesToTrackCountAsUnsettled() {
        let clock = ManualClock()
        var schedule = settled(clock)
        schedule.heardLinked(count: 100)
        for seed in 0..<UInt64(policy.maxUnlinkedTracked + 1) { schedule.heardUnlinked(TestNetwork.key(29_100 + seed).nodeNumber) }
        // Every one of them linked by now, but they were not all remembered.
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
    }

    /// The size a turn takes rises with the count at once, falls by an
    /// eighth a turn at most, and is the count itself on a small LAN.
    @Test func theLANSizeRisesAtOnceAndFallsSlowly() {
        let schedule = BeaconSchedule(policy: policy)
        #expect(schedule.lanSize(counted: 1_000, previous: 50) == 1_000)
        #expect(schedule.lanSize(counted: 5, previous: 12) == 5, "a small LAN: the count")
        #expect(schedule.lanSize(counted: 900, previous: 1_000) == 900, "within a turn's fall")
        var size = 1_000
        var turns = 0
        while size > 100 {
            let next = schedule.lanSize(counted: 100, previous: size)
            #expect(next >= size - size / policy.sizeFall && next < size)
            size = next
            turns += 1
        }
        #expect(size == 100)
        #expect((15...25).contains(turns), "a tenth of the size within a few minutes of turns, not at once")
        // Below the quiet size it ends at the count itself.
        #expect(schedule.lanSize(counted: 3, previous: policy.quietSize + 1) == policy.quietSize + 1 - max(1, (policy.quietSize + 1) / policy.sizeFall))
        #expect(schedule.lanSize(counted: 3, previous: policy.quietSize) == 3)
        var fixed = policy
        fixed.adaptive = false
        #expect(BeaconSchedule(policy: fixed).lanSize(counted: 100, previous: 1_000) == 100, "a fixed schedule takes the count")
    }

    @Test func aLostLinkKeepsTheNextTurn() {
        let clock = ManualClock()
        var schedule = settled(clock)
        schedule.heardLinked(count: 100)
        schedule.linkLost()
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, random: 0.5) { _ in true }.send)
    }

    @Test func noNodeStaysSilentPastTheLimit() {
        let clock = ManualClock()
        var schedule = settled(clock, knownNodes: 300)
        let limit = schedule.maxSilence(knownNodes: 300)
        var lastSent = clock.uptime() - .seconds(30)
        var skips = 0
        for _ in 0..<100 {
            schedule.heardLinked(count: 100)
            let turn = schedule.turn(at: clock.uptime(), knownNodes: 300, random: 0.999) { _ in true }
            if turn.send {
                #expect(clock.uptime() - lastSent <= limit)
                lastSent = clock.uptime()
            } else {
                skips += 1
            }
            clock.advance(by: turn.next - clock.uptime())
        }
        #expect(skips > 50)
        #expect(skips < 100)
    }

    /// Another beacon sent (an answer, a burst) counts as the last sent.
    @Test func anyBroadcastBeaconRestartsTheSilence() {
        var schedule = BeaconSchedule(policy: policy)
        schedule.sent(at: .seconds(7))
        #expect(schedule.lastSentAt == .seconds(7))
    }

    /// A newcomer of a large LAN with links to `newcomerLinks` peers is
    /// heard: its newcomer turns no longer keep the turn (session 16, a
    /// mass start); with fewer links, or on a small LAN, they do.
    @Test func aNewcomerLinkedToAFewStopsItsNewcomerTurns() {
        let clock = ManualClock()
        var schedule = BeaconSchedule(policy: policy)
        schedule.heardLinked(count: 100)
        #expect(schedule.turn(at: clock.uptime(), knownNodes: 1_000, links: policy.newcomerLinks - 1, random: 0.5) { _ in true }.send)
        clock.advance(by: .seconds(30))
        schedule.heardLinked(count: 100)
        #expect(!schedule.turn(at: clock.uptime(), knownNodes: 1_000, links: policy.newcomerLinks, random: 0.5) { _ in true }.send)
        #expect(schedule.turns < policy.newcomerTurns)
        var small = BeaconSchedule(policy: policy)
        small.heardLinked(count: 100)
        #expect(small.turn(at: clock.uptime(), knownNodes: 20, links: 19, random: 0.5) { _ in true }.send)
        var baseline = policy
        baseline.newcomerLinks = 0
        var before = BeaconSchedule(policy: baseline)
        before.heardLinked(count: 100)
        #expect(before.turn(at: clock.uptime(), knownNodes: 1_000, links: 50, random: 0.5) { _ in true }.send)
    }

    /// Nodes that formed a LAN together all send their first turns, then
    /// stay silent as long as the limit allows: with the limit alone they
    /// reached it together, cycle after cycle (1,000 on one host: 5
    /// beacons a second in a wave, under 1 between). Each silence drawn in
    /// the limit's upper half spreads them (Trickle's [I/2, I)).
    @Test(.heavy) func nodesThatSentTogetherDoNotReachTheirSilenceLimitTogether() {
        let nodes = 1_000
        func waves(_ policy: BeaconSchedule.Policy) -> BeaconRateSimulation.Result {
            let limit = BeaconSchedule(policy: policy).maxSilence(knownNodes: nodes)
            // From just after the newcomer turns through the first two silences.
            return BeaconRateSimulation.run(nodes: nodes, policy: policy, warmUp: .seconds(120), measured: limit * 2, seed: 25)
        }
        let spread = waves(policy)
        var limitAlone = policy
        limitAlone.silenceSpread = 0
        limitAlone.silenceFloor = 4
        let before = waves(limitAlone)
        #expect(spread.peakPerSecond <= 3 * spread.perSecond, "\(spread)")
        #expect(before.peakPerSecond > 4 * before.perSecond, "the limit alone makes waves: \(before)")
        #expect(spread.longestSilence <= BeaconSchedule(policy: policy).maxSilence(knownNodes: nodes) + .seconds(1), "\(spread)")
    }

    /// The LAN-wide rate, simulated on one seeded clock: at most about 10
    /// beacons a second at any size, where the fixed schedule sends N/2.
    @Test(.heavy, arguments: [10, 100, 1_000, 10_000])
    func theLANWideRateStaysBounded(nodes: Int) {
        let adaptive = BeaconRateSimulation.steadyState(nodes: nodes, policy: policy, seed: 29)
        #expect(adaptive.perSecond <= 10.5, "\(adaptive)")
        #expect(adaptive.longestSilence <= BeaconSchedule(policy: policy).maxSilence(knownNodes: nodes) + .seconds(1), "\(adaptive)")
        if nodes <= 20 {
            // Nothing changes for a small LAN: the fixed schedule's N/2.
            #expect(abs(adaptive.perSecond - Double(nodes) / 2) < Double(nodes) * 0.05, "\(adaptive)")
        }
        if nodes <= 1_000 {
            var fixed = policy
            fixed.adaptive = false
            let baseline = BeaconRateSimulation.run(nodes: nodes, policy: fixed, warmUp: .seconds(10), measured: .seconds(60), seed: 29)
            #expect(abs(baseline.perSecond - Double(nodes) / 2) < Double(nodes) * 0.05, "\(baseline)")
        }
    }
}
