import ChatOverlay
import Foundation

/// Issue 29's simulator figures: 10,000 overlay nodes on one seeded clock
/// (join, settle, 30 messages; then 10% crash and 10% join, time to
/// repair, 10 more messages), beside the naive baselines of the same
/// size: today's full mesh (computed: N-1 links a node, N-1 sends a
/// message, one copy each) and plain flooding over the same bounded
/// views (simulated: every node forwards to every active neighbour).
enum OverlaySimRow {
    static func run(quick: Bool) -> BenchRow {
        let nodes = quick ? 2_000 : 10_000
        let started = ContinuousClock.now
        var sim = settled(nodes, lazyPush: true)
        publish(&sim, 30)
        let steady = sim.report()
        sim.crash(sim.randomAlive(nodes / 10))
        sim.join(nodes / 10, spacing: .milliseconds(2))
        let repair = sim.runUntilRepaired(limit: .seconds(60))
        publish(&sim, 10)
        let after = sim.report()
        let seconds = Measure.seconds(ContinuousClock.now - started)

        var flood = settled(nodes, lazyPush: false)
        publish(&flood, 10)
        let flooding = flood.report()

        let repairText = repair.map { String(format: "%.1f s", Measure.seconds($0)) } ?? "not within 60 s"
        let value = String(format: "reach %.2f%% (%d/%d messages complete), hops p50 %d / p99 %d, copies %.2f a node a message, "
                           + "links %.1f a node (max %d), repair after 10%% crash + 10%% join: %@, then reach %.2f%%",
                           steady.reach * 100, steady.messagesFullyReached, steady.messages, steady.hopsP50, steady.hopsP99,
                           steady.copiesPerDelivery, steady.linksMean, steady.linksMax, repairText, after.reach * 100)
        let mesh = Double(nodes - 1)
        let baseline = String(format: "full mesh: %d links a node (%.0f on the LAN), %d sends a message, 1 copy; "
                              + "flooding the same views: copies %.2f a node a message, hops p99 %d",
                              nodes - 1, mesh * Double(nodes) / 2, nodes - 1, flooding.copiesPerDelivery, flooding.hopsP99)
        let met = steady.reach == 1 && steady.copiesPerDelivery < 2 && repair != nil && after.reach == 1
        return BenchRow(
            key: "overlay-sim",
            figure: "overlay simulator, \(nodes) nodes (HyParView + Plumtree, seeded; \(String(format: "%.1f", seconds)) s to run)",
            value: value, baseline: baseline, target: "reach 100%, copies < 2", met: met,
            numbers: ["nodes": Double(nodes), "reach": steady.reach, "hops_p50": Double(steady.hopsP50),
                      "hops_p99": Double(steady.hopsP99), "copies": steady.copiesPerDelivery, "links_mean": steady.linksMean,
                      "links_max": Double(steady.linksMax), "repair_s": repair.map(Measure.seconds) ?? .nan,
                      "reach_after_churn": after.reach, "delay_p99_ms": steady.delayP99Millis,
                      "flood_copies": flooding.copiesPerDelivery, "mesh_links_per_node": mesh, "run_s": seconds],
            note: "steady: \(steady); after churn: \(after); flooding: \(flooding)")
    }

    private static func settled(_ nodes: Int, lazyPush: Bool) -> OverlaySimulation {
        var config = SimulationConfig(seed: 29)
        config.overlay.lazyPush = lazyPush
        var sim = OverlaySimulation(config)
        sim.join(nodes, spacing: .milliseconds(1))
        sim.run(for: .seconds(15))
        return sim
    }

    private static func publish(_ sim: inout OverlaySimulation, _ count: Int) {
        for origin in sim.randomAlive(count) {
            sim.publish(from: origin)
            sim.run(for: .milliseconds(200))
        }
        sim.run(for: .seconds(2))
    }
}
