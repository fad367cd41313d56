import ChatCore
import ChatCrypto
import Foundation
import P2PTransport

/// Issue 29's discovery figures: the beacons a LAN carries a second under
/// `BeaconSchedule`, beside the fixed 2 s schedule of before (same run).
/// Large LANs by the seeded simulation of the schedule
/// (`BeaconRateSimulation`); one LAN of real services on loopback, measured
/// from their counters, with a newcomer's time to its first link and to
/// all of them, adaptive and fixed.
enum BeaconRateRow {
    static func run(quick: Bool) async throws -> BenchRow {
        var numbers: [String: Double] = [:]
        var simulated: [String] = []
        var baselineSimulated: [String] = []
        var met = true
        for nodes in [20, 100, 1_000, 10_000] {
            let policy = BeaconSchedule.Policy(base: .seconds(2))
            var fixedPolicy = policy
            fixedPolicy.adaptive = false
            let adaptive = BeaconRateSimulation.steadyState(nodes: nodes, policy: policy, seed: 29)
            let fixed = BeaconRateSimulation.run(nodes: nodes, policy: fixedPolicy, warmUp: .seconds(10),
                                                 measured: .seconds(quick ? 30 : 120), seed: 29)
            simulated.append(String(format: "%d nodes %.1f/s (peak %.1f/s in 20 s)", nodes, adaptive.perSecond, adaptive.peakPerSecond))
            baselineSimulated.append(String(format: "%d nodes %.0f/s", nodes, fixed.perSecond))
            numbers["sim_\(nodes)_per_s"] = adaptive.perSecond
            numbers["sim_\(nodes)_fixed_per_s"] = fixed.perSecond
            numbers["sim_\(nodes)_peak_per_s"] = adaptive.peakPerSecond
            numbers["sim_\(nodes)_longest_silence_s"] = Measure.seconds(adaptive.longestSilence)
            met = met && adaptive.perSecond <= 10.5
        }

        // A mass start (20 launches a second, the overlay-processes row's
        // rate) and one newcomer on a settled LAN, with the rules of before
        // as the baseline where its cost (N² requests) is still quick.
        var massStart: [String] = []
        var massBaseline: [String] = []
        for nodes in [100, 1_000, 10_000] {
            let span = Duration.seconds(Double(nodes) / 20 + 30)
            let now = MassStartSimulation.massStart(nodes: nodes, launchRate: 20, duration: span, seed: 29)
            let join = MassStartSimulation.join(nodes: nodes, seed: 29)
            massStart.append(String(format: "%d nodes %.1f broadcasts a node (%.1f answers), peak %d/s; a newcomer on the settled LAN: first peer %.0f ms, 3rd %.0f ms, %d answers",
                                    nodes, now.perNode, Double(now.answers) / Double(nodes), now.peakPerSecond,
                                    join.firstPeerMax * 1_000, join.enoughPeersMax * 1_000, join.answers))
            numbers["mass_\(nodes)_per_node"] = now.perNode
            numbers["mass_\(nodes)_peak_per_s"] = Double(now.peakPerSecond)
            numbers["join_\(nodes)_third_peer_ms"] = join.enoughPeersMax * 1_000
            met = met && now.perNode < 8 && join.enoughPeersMax < 2
            if nodes <= 1_000 {
                let before = MassStartSimulation.massStart(nodes: nodes, launchRate: 20, duration: span, setup: MassStartSimulation.Setup.baseline, seed: 29)
                massBaseline.append(String(format: "%d nodes %.1f a node (%.1f answers), peak %d/s", nodes, before.perNode,
                                           Double(before.answers) / Double(nodes), before.peakPerSecond))
                numbers["mass_\(nodes)_baseline_per_node"] = before.perNode
            }
        }

        let size = quick ? 30 : 40
        let window: Duration = quick ? .seconds(10) : .seconds(20)
        let real = try await lan(size: size, window: window, adaptive: true)
        let baseline = try await lan(size: size, window: window, adaptive: false)
        for (name, trial) in [("adaptive", real), ("fixed", baseline)] {
            numbers["real_\(name)_per_s"] = trial.perSecond
            numbers["real_\(name)_received_per_node_s"] = trial.receivedPerNode
            numbers["real_\(name)_first_link_ms"] = trial.firstLink * 1_000
            numbers["real_\(name)_all_links_ms"] = trial.allLinks * 1_000
            numbers["real_\(name)_answers"] = Double(trial.answers)
        }
        met = met && real.firstLink < 2 && real.allLinks < 2
        func describe(_ trial: Trial) -> String {
            String(format: "%d real nodes %.1f/s (each received %.1f/s), newcomer's first link %.0f ms, all %d links %.0f ms, %d answers broadcast",
                   size, trial.perSecond, trial.receivedPerNode, trial.firstLink * 1_000, size, trial.allLinks * 1_000, trial.answers)
        }
        return BenchRow(
            key: "beacon-rate",
            figure: "beacons the LAN carries a second, and a newcomer's links (BeaconSchedule)",
            value: "simulated: " + simulated.joined(separator: ", ") + "; " + describe(real)
                + "; mass start, simulated: " + massStart.joined(separator: ", "),
            baseline: "fixed 2 s: " + baselineSimulated.joined(separator: ", ") + "; " + describe(baseline)
                + "; mass start before session 16's rules: " + massBaseline.joined(separator: ", "),
            target: "≤ 10/s at any size; newcomer linked < 2 s; a mass start < 8 broadcasts a node", met: met, numbers: numbers,
            note: "simulation: settled full mesh, seeded (29), warm-up 1.2 × then measured 1 × max(600 s, the silence limit: 8000 s at 10,000 nodes); real: in-process services on "
                + "127.255.255.255, default timings, rate over \(Int(Measure.seconds(window))) s once every node is past its first turns")
    }

    struct Trial {
        var perSecond: Double
        var receivedPerNode: Double
        var firstLink: Double
        var allLinks: Double
        /// Answers the LAN broadcast to the newcomer (`NewcomerAnswers`).
        var answers: Int
    }

    /// `size` services meshed on loopback, settled; their beacons over
    /// `window`; then a newcomer, timed to its first link and to all.
    private static func lan(size: Int, window: Duration, adaptive: Bool) async throws -> Trial {
        let port = BenchPorts.freeDiscoveryPort()
        func service(_ name: String) throws -> P2PService {
            var configuration = P2PConfiguration()
            configuration.discoveryPort = port
            configuration.broadcastAddresses = ["127.255.255.255"]
            configuration.adaptiveBeacons = adaptive
            // The baseline answers newcomers at once, as before issue 29.
            configuration.delayedAnswers = adaptive
            let key = try IdentityKey.generate()
            configuration.identityKey = key
            return P2PService(identity: NodeIdentity(number: key.nodeNumber, nickname: name), configuration: configuration)
        }
        let services = try (0..<size).map { try service("b\($0)") }
        // Nobody reads the events: a service buffers them without bound, few here.
        for service in services { try await service.start() }
        defer { Task { for service in services { await service.stop() } } }
        let meshDeadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < meshDeadline {
            var linked = 0
            for service in services { linked += await service.connectedPeers().count }
            if linked == size * (size - 1) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Past every node's first turns (three, each up to 1.2 × 4 s here).
        try await Task.sleep(for: .seconds(15))
        func totals() async -> (sent: Int, received: Int) {
            var sent = 0
            var received = 0
            for service in services {
                let counters = await service.counters()
                sent += counters.beaconsSent
                received += counters.beaconsReceived
            }
            return (sent, received)
        }
        let before = await totals()
        let windowStart = ContinuousClock.now
        try await Task.sleep(for: window)
        let after = await totals()
        let seconds = Measure.seconds(ContinuousClock.now - windowStart)

        func answers() async -> Int {
            var sum = 0
            for service in services { sum += await service.counters().answersBroadcast }
            return sum
        }
        let answersBefore = await answers()
        let newcomer = try service("newcomer")
        let started = ContinuousClock.now
        try await newcomer.start()
        var firstLink: Double = .infinity
        var allLinks: Double = .infinity
        let deadline = started + .seconds(20)
        while ContinuousClock.now < deadline {
            let linked = await newcomer.connectedPeers().count
            let elapsed = Measure.seconds(ContinuousClock.now - started)
            if linked > 0, !firstLink.isFinite { firstLink = elapsed }
            if linked == size {
                allLinks = elapsed
                break
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        let answered = await answers() - answersBefore
        await newcomer.stop()
        for service in services { await service.stop() }
        return Trial(perSecond: Double(after.sent - before.sent) / seconds,
                     receivedPerNode: Double(after.received - before.received) / seconds / Double(size),
                     firstLink: firstLink, allLinks: allLinks, answers: answered)
    }
}
