import ChatCore
import ChatOverlay
import Testing
import TestSupport

/// The overlay in the simulator, at sizes CI can afford in a debug build:
/// everyone reached, few copies, bounded links, repair after churn, a
/// censor routed around, and an exact replay of a seed.
@Suite(.heavy) struct SimulationTests {
    /// 1,000 nodes joining 2 ms apart, settled, then 12 messages from random nodes.
    static func settled(_ nodes: Int = 1_000, seed: UInt64 = 7, configure: (inout SimulationConfig) -> Void = { _ in })
        -> OverlaySimulation {
        var config = SimulationConfig(seed: seed)
        configure(&config)
        var sim = OverlaySimulation(config)
        sim.join(nodes, spacing: .milliseconds(2))
        sim.run(for: .seconds(8))
        return sim
    }

    static func publish(_ sim: inout OverlaySimulation, _ count: Int, every gap: Duration = .milliseconds(200)) {
        for origin in sim.randomAlive(count) {
            sim.publish(from: origin)
            sim.run(for: gap)
        }
        sim.run(for: .seconds(2))
    }

    @Test func aThousandNodesAreAllReachedWithFewCopies() {
        var sim = Self.settled()
        Self.publish(&sim, 12)
        let report = sim.report()
        #expect(report.reach == 1, "\(report)")
        #expect(report.messagesFullyReached == 12, "\(report)")
        #expect(report.copiesPerDelivery < 2, "\(report)")
        #expect(report.linksMax <= OverlayConfig().activeViewMax, "\(report)")
        #expect(report.linksMin >= OverlayConfig().activeViewMin, "\(report)")
        #expect(report.hopsP99 < 20, "\(report)")
        #expect(sim.mutualShare() > 0.95, "views are symmetric but for links in flight")
        for node in sim.aliveNodes { #expect(sim.overlay(of: node)!.membership.passive.count <= OverlayConfig().passiveViewMax) }
    }

    @Test func aSmallLANStaysAFullMesh() {
        var sim = Self.settled(20)
        Self.publish(&sim, 3)
        let report = sim.report()
        #expect(report.reach == 1)
        #expect(report.linksMin == 19 && report.linksMax == 19, "\(report)")
        #expect(report.hopsP99 == 1, "every copy straight from its author")
        #expect(report.copiesPerDelivery == 1, "\(report)")
    }

    @Test func tenPercentLeaveTenPercentJoinAndTheOverlayRepairs() {
        var sim = Self.settled()
        Self.publish(&sim, 3)
        sim.crash(sim.randomAlive(100))
        sim.join(100, spacing: .milliseconds(5))
        let repair = sim.runUntilRepaired(limit: .seconds(30))
        #expect(repair != nil)
        Self.publish(&sim, 6)
        let report = sim.report()
        #expect(report.messagesFullyReached >= 6, "the messages after the repair reach everyone: \(report)")
        #expect(report.linksMax <= OverlayConfig().activeViewMax)
    }

    @Test func censorsAreRoutedAroundByLazyPushAndGraft() {
        var sim = Self.settled(500)
        Self.publish(&sim, 6)  // the eager links settle into a tree first
        for censor in sim.randomAlive(10) { sim.setRole(.censor, of: censor) }
        Self.publish(&sim, 8)
        let report = sim.report()
        #expect(report.reach == 1, "\(report)")
        #expect(report.graftedIDs > 0, "the repair went through GRAFT")
    }

    @Test func theSameSeedReplaysExactly() {
        func run() -> SimulationReport {
            var sim = Self.settled(300, seed: 42) { $0.loss = 0.01 }
            Self.publish(&sim, 4)
            sim.crash(sim.randomAlive(30))
            sim.run(for: .seconds(3))
            Self.publish(&sim, 2)
            return sim.report()
        }
        let first = run()
        #expect(first == run())
        var other = Self.settled(300, seed: 43) { $0.loss = 0.01 }
        Self.publish(&other, 4)
        #expect(other.report() != first, "a different seed is a different run")
    }

    @Test func aForgerIsNotRelayedAndItsNeighboursDropIt() {
        var sim = Self.settled(300)
        Self.publish(&sim, 3)
        let forger = sim.randomAlive(1)[0]
        let neighbours = sim.aliveNodes.filter { sim.overlay(of: $0)!.membership.active[OverlaySimulation.number(forger)] != nil }
        #expect(!neighbours.isEmpty)
        let forged = sim.publish(from: forger, forged: true)
        sim.run(for: .seconds(2))
        #expect(sim.deliveries(of: forged) == 0)
        for node in neighbours {
            #expect(sim.overlay(of: node)!.membership.active[OverlaySimulation.number(forger)] == nil, "\(node) dropped the forger")
        }
    }

    /// One peer floods a node with JOIN, NEIGHBOR and FORWARDJOIN naming
    /// itself: it ends up in no more active views than one JOIN's walks
    /// give (1 + one walk per neighbour), not everyone's.
    @Test func aFloodOfJoinsDoesNotMakeAPeerEveryonesNeighbour() {
        var sim = Self.settled(300)
        let puppet = sim.join(1, role: .puppet)[0]
        sim.run(for: .milliseconds(100))
        let contact = sim.randomAlive(1)[0]
        let me = OverlaySimulation.number(puppet)
        for _ in 0..<200 {
            for frame: OverlayFrame in [.join, .neighbor(highPriority: true), .forwardJoin(newNode: me, ttl: 16)] {
                sim.inject(frame, from: puppet, to: contact)
            }
            sim.run(for: .milliseconds(10))
        }
        sim.run(for: .seconds(3))
        #expect(sim.inDegree(of: puppet) <= 1 + OverlayConfig().activeViewMax, "in \(sim.inDegree(of: puppet)) views")
        #expect(sim.report().linksMax <= OverlayConfig().activeViewMax)
    }
}
