import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One size of the overlay-processes row: starts N node processes at a
/// controlled rate, waits for one connected overlay (or a full mesh),
/// measures it idle, then sends public messages, and kills every node
/// on the way out (success or failure; a crash of the bench kills them by
/// the harness's parent-death signal).
enum ProcessSwarm {
    /// Launches per second at most (`LANCHAT_BENCH_LAUNCH_RATE`): a node's
    /// start costs tens of milliseconds of CPU, and each start burst is
    /// heard by every node already running.
    static var launchRate: Double {
        ProcessInfo.processInfo.environment["LANCHAT_BENCH_LAUNCH_RATE"].flatMap(Double.init) ?? 20
    }

    /// Launching waits while the nodes already running use more than this
    /// many cores (`LANCHAT_BENCH_LAUNCH_CORES`; 0, the default: no wait).
    /// Tried at 1.5 on 27 November: 300 nodes took 155 s to launch (132 s
    /// waiting) and formed no better than launched at 20 a second, and past
    /// ~500 nodes their idle cost alone is over the bound, so every launch
    /// waited its cap.
    static var launchCores: Double {
        ProcessInfo.processInfo.environment["LANCHAT_BENCH_LAUNCH_CORES"].flatMap(Double.init) ?? 0
    }

    /// Seconds one size may take in all (`LANCHAT_BENCH_SWARM_BUDGET`,
    /// default 600): launching stops at half of it, the wait to form ends
    /// 100 s before it, so a size that does not form still reports its
    /// idle cost, a few messages and its timeline within the budget.
    static var budget: Double {
        ProcessInfo.processInfo.environment["LANCHAT_BENCH_SWARM_BUDGET"].flatMap(Double.init) ?? 600
    }

    static func measure(size: Int, fullMesh: Bool, quick: Bool) async throws -> Figures {
        var figures = Figures(size: size, fullMesh: fullMesh)
        figures.loadBefore = Machine.loadAverage() ?? .nan
        let label = "\(size)\(fullMesh ? " full mesh" : " overlay")"
        BenchPlan.log(String(format: "  %@: launching at %.0f/s (load average %.2f)", label, launchRate, figures.loadBefore))
        let port = BenchPorts.freeDiscoveryPort()
        // Above N: the node stays in a full mesh (the test-only switch).
        let environment = fullMesh ? ["LANCHAT_OVERLAY_THRESHOLD": "\(size + 1)"] : [:]
        var nodes: [GossipChild] = []
        defer { stopAll(nodes) }
        let launch = ContinuousClock.now
        let gap = Duration.seconds(1 / launchRate)
        var pacer = LaunchPacer(cores: launchCores)
        var next = launch
        let budget = Self.budget
        for index in 0..<size {
            if index > 0 {
                next = max(next + gap, ContinuousClock.now)
                try await Task.sleep(until: next)
                next = try await pacer.waitForRoom(nodes)
            }
            let elapsed = Measure.seconds(ContinuousClock.now - launch)
            if figures.timeline.sample(at: elapsed, launched: nodes.count, graph: Graph(nodes.map(\.snapshot)),
                                       load: Machine.loadAverage() ?? .nan) {
                BenchPlan.log("    \(label): \(figures.timeline.summary.split(separator: ";").last ?? "")")
            }
            if elapsed > budget / 2 {
                BenchPlan.log("    \(label): launching stopped at \(nodes.count) of \(size): half the budget (\(Int(budget)) s) spent")
                break
            }
            nodes.append(try GossipChild(arguments: ["--json", "--in-memory", "--nick", "o\(index)", "--broadcast", "127.255.255.255",
                                                     "--discovery-port", "\(port)"], environment: environment))
        }
        figures.launched = nodes.count
        figures.launchWaits = pacer.waited
        figures.launchSeconds = Measure.seconds(ContinuousClock.now - launch)
        let timeout = min(60.0 + Double(size) * (fullMesh ? 0.2 : 0.05), max(10, budget - 100 - figures.launchSeconds))
        let formed = await waitUntilFormed(nodes, fullMesh: fullMesh, timeout: timeout, launch: launch, timeline: &figures.timeline)
        let startCounters = await counters(nodes)
        figures.startCounters = startCounters.sum
        if !fullMesh { logMostLinked(nodes, label: label) }
        figures.startSpan = Measure.seconds((formed ?? ContinuousClock.now) - launch)
        let shape = Graph(nodes.map(\.snapshot))
        figures.links = shape.links
        figures.components = shape.components
        figures.startCPU = cpu(nodes)
        let lastReady = nodes.compactMap { $0.snapshot.readyAt }.max() ?? launch
        if let formed {
            figures.formedFromLaunch = Measure.seconds(formed - launch)
            figures.formedFromReady = max(0, Measure.seconds(formed - lastReady))
        }
        BenchPlan.log("  \(label): " + (formed == nil ? "not formed in \(Int(timeout)) s" : "formed") + ", \(shape.components) component(s) (\(shape.sizeText)), links \(shape.linkRange)")
        // Idle: past the overlay's first shuffles, then CPU of all over a window.
        // LANCHAT_BENCH_IDLE_SETTLE: longer first (what a LAN does minutes
        // after it formed: announcements expire, beacons grow seldom).
        let settle = ProcessInfo.processInfo.environment["LANCHAT_BENCH_IDLE_SETTLE"].flatMap(Double.init) ?? (quick ? 5 : 10)
        try await Task.sleep(for: .seconds(settle))
        figures.idleWindow = quick ? 10 : 20
        let eventsBefore = nodes.reduce(0) { $0 + $1.snapshot.linkEvents }
        let countersBefore = await counters(nodes)
        let sentBefore = nodes.map { $0.snapshot.transport["beaconsSent"] ?? 0 }
        let cpuBefore = cpu(nodes)
        let idleStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(figures.idleWindow))
        figures.idleCores = (cpu(nodes) - cpuBefore) / Measure.seconds(ContinuousClock.now - idleStart)
        figures.linkEventsIdle = nodes.reduce(0) { $0 + $1.snapshot.linkEvents } - eventsBefore
        figures.loadIdle = Machine.loadAverage() ?? .nan
        let countersAfter = await counters(nodes)
        logBeaconsBySize(nodes, before: sentBefore, label: label)
        figures.idleCounters = countersAfter.sum.merging(countersBefore.sum.mapValues { -$0 }) { $0 + $1 }
        figures.partial = countersAfter.partial
        figures.active = countersAfter.active
        figures.sizeEstimates = countersAfter.sizes
        figures.pss = nodes.compactMap { ProcessStats.pss($0.pid) }
        figures.descriptors = nodes.compactMap(\.descriptors)
        let afterIdle = Graph(nodes.map(\.snapshot))
        figures.links = afterIdle.links
        BenchPlan.log("  \(label): after the idle window, \(afterIdle.components) component(s) (\(afterIdle.sizeText)), links \(afterIdle.linkRange)")
        // Not formed: a few messages, waited for less, so the row reports within its budget.
        let messagesCPU = cpu(nodes), messagesStart = ContinuousClock.now
        // LANCHAT_BENCH_MESSAGES: how many, formed or not (a profile's window).
        let asked = ProcessInfo.processInfo.environment["LANCHAT_BENCH_MESSAGES"].flatMap(Int.init)
        let messageCount = asked ?? (formed == nil ? 3 : quick ? 5 : 10)
        try await sendMessages(nodes, into: &figures, count: messageCount, wait: formed == nil ? 10 : 20)
        let phase = Measure.seconds(ContinuousClock.now - messagesStart)
        figures.messageCPU = (cpu(nodes) - messagesCPU - figures.idleCores * phase) / Double(max(1, figures.messages))
        let countersEnd = await counters(nodes)
        // A counter's count a message a node, less the idle window's rate
        // as for the CPU (shuffles, walks, keepalives, beacons).
        let perMessage = { (key: String) -> Double in
            let counted = Double((countersEnd.sum[key] ?? 0) - (countersAfter.sum[key] ?? 0))
            let idle = Double(figures.idleCounters[key] ?? 0) / figures.idleWindow * phase
            return (counted - idle) / Double(max(1, figures.messages * nodes.count))
        }
        figures.overlayFramesPerMessage = perMessage("overlayFramesReceived")
        // Where a message's CPU goes: each is a wake-up or a write.
        BenchPlan.log("  \(label): a message a node, beyond idle: " + ["pollBatches", "timerWakes", "framesSent", "overlayFramesSent", "gossipReceived", "ihavesReceived", "graftsReceived", "prunesReceived"]
            .map { String(format: "%@ %.2f", $0, perMessage($0)) }.joined(separator: ", "))
        figures.loadEnd = Machine.loadAverage() ?? .nan
        BenchPlan.log("  " + figures.summary)
        BenchPlan.log("  " + figures.note)
        return figures
    }

    /// When every node was ready and the links made one connected graph:
    /// every node linked to every other in a full mesh, in the overlay at
    /// least one link each and none over the active view's cap (10).
    /// Polled every 250 ms up to 300 nodes, less often above (the graph
    /// of a thousand costs the row's own CPU beside the nodes'); the
    /// timeline takes a sample every 10 s.
    private static func waitUntilFormed(_ nodes: [GossipChild], fullMesh: Bool, timeout: Double, launch: ContinuousClock.Instant,
                                        timeline: inout SwarmTimeline) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        let poll: Duration = .milliseconds(nodes.count > 300 ? 1_000 : 250)
        while ContinuousClock.now < deadline {
            let now = ContinuousClock.now
            let graph = Graph(nodes.map(\.snapshot))
            if graph.ready == nodes.count, graph.components == 1 {
                let links = graph.links
                if fullMesh ? links.allSatisfy({ $0 == nodes.count - 1 }) : links.allSatisfy({ (1...10).contains($0) }) {
                    _ = timeline.sample(at: Measure.seconds(now - launch), launched: nodes.count, graph: graph, load: Machine.loadAverage() ?? .nan)
                    return now
                }
            }
            if timeline.sample(at: Measure.seconds(now - launch), launched: nodes.count, graph: graph, load: Machine.loadAverage() ?? .nan),
               let last = timeline.last {
                BenchPlan.log("    \(Int(last.seconds)) s: \(last.ready)/\(nodes.count) ready, \(last.components) group(s), links \(last.links), load \(Int(last.load))")
            }
            try? await Task.sleep(for: poll)
        }
        let graph = Graph(nodes.map(\.snapshot))
        _ = timeline.sample(at: Measure.seconds(ContinuousClock.now - launch), launched: nodes.count, graph: graph, load: Machine.loadAverage() ?? .nan)
        return nil
    }

    /// Sends `count` public messages from nodes spread over the swarm, one
    /// at a time, each waited for at every other node (up to `wait` s; the arrival
    /// times come from the lines' own read times, not this poll), then
    /// counts who showed each and how often.
    private static func sendMessages(_ nodes: [GossipChild], into figures: inout Figures, count: Int, wait: Double) async throws {
        var latencies: [Double] = []
        var texts: [(String, Int)] = []
        let perMessageCounters = ProcessInfo.processInfo.environment["LANCHAT_BENCH_PER_MESSAGE"] == "1"
        var lastCounters = perMessageCounters ? await counters(nodes).sum : [:]
        for k in 0..<count {
            let sender = (k * nodes.count) / count + k % max(1, nodes.count / count)
            let text = "swarm \(nodes.count) \(figures.fullMesh ? "mesh" : "overlay") message \(k)"
            let sent = ContinuousClock.now
            nodes[sender].send(["cmd": "send", "text": text])
            texts.append((text, sender))
            let deadline = sent + .seconds(wait)
            while ContinuousClock.now < deadline {
                let missing = nodes.indices.contains { $0 != sender && nodes[$0].message(text) == nil }
                if !missing { break }
                try await Task.sleep(for: .milliseconds(nodes.count > 300 ? 100 : 20))
            }
            let these = nodes.indices.compactMap { index in
                index == sender ? nil : nodes[index].message(text).map { Measure.seconds($0.first - sent) }
            }
            latencies += these
            // Each message's own spread: the first after forming floods
            // every link still eager, the later ones follow pruned trees.
            var line = String(format: "    message %d: p50 %.0f ms / p99 %.0f ms / max %.0f ms", k,
                              Measure.percentile(these, 0.5) * 1000, Measure.percentile(these, 0.99) * 1000, (these.max() ?? .nan) * 1000)
            // LANCHAT_BENCH_PER_MESSAGE=1: also each message's copies and
            // IHAVEs a node (asks every node's counters: costs CPU between messages).
            if perMessageCounters {
                try await Task.sleep(for: .milliseconds(700))  // the wave's IHAVE flush
                let now = await counters(nodes).sum
                let delta = { (key: String) in Double((now[key] ?? 0) - (lastCounters[key] ?? 0)) / Double(nodes.count) }
                line += String(format: ", copies %.2f, IHAVEs %.2f, grafts %.3f, prunes %.2f a node", delta("gossipReceived"),
                               delta("ihavesReceived"), delta("graftsReceived"), delta("prunesReceived"))
                lastCounters = now
            }
            BenchPlan.log(line)
            try await Task.sleep(for: .milliseconds(300))
        }
        try await Task.sleep(for: .seconds(2))  // late duplicates
        var exactlyOnce = 0
        for (text, sender) in texts {
            for index in nodes.indices where index != sender {
                guard let seen = nodes[index].message(text) else { continue }
                if seen.count == 1 { exactlyOnce += 1 } else { figures.duplicates += seen.count - 1 }
            }
        }
        figures.messages = count
        figures.reach = Double(exactlyOnce) / Double(count * (nodes.count - 1))
        figures.latencyP50 = Measure.percentile(latencies, 0.5)
        figures.latencyP99 = Measure.percentile(latencies, 0.99)
        figures.latencyMax = latencies.max() ?? .nan
    }

    /// Every node's transport counters (its `stats` reply, waited for up
    /// to 5 s), summed; nodes above the threshold; active views.
    private static func counters(_ nodes: [GossipChild]) async -> (sum: [String: Int], partial: Int, active: [Int], sizes: [Int]) {
        let before = nodes.map { $0.snapshot.statsReplies }
        for node in nodes { node.send(["cmd": "stats"]) }
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, nodes.indices.contains(where: { nodes[$0].snapshot.statsReplies == before[$0] }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        var sum: [String: Int] = [:]
        var partial = 0
        var active: [Int] = []
        var sizes: [Int] = []
        for node in nodes {
            let transport = node.snapshot.transport
            sum.merge(transport) { $0 + $1 }
            if transport["overlayPartial"] == 1 { partial += 1 }
            active.append(transport["overlayActivePeers"] ?? 0)
            sizes.append(transport["lanSizeEstimate"] ?? 0)
        }
        return (sum, partial, active, sizes)
    }

    /// The three nodes with the most links and what their transport says
    /// of them (a node over the overlay's cap keeps the row from forming).
    private static func logMostLinked(_ nodes: [GossipChild], label: String) {
        let keys = ["overlayPartial", "overlayActivePeers", "lanSizeEstimate", "directLinks", "linksAccepted", "linksDialled", "overlayCloses"]
        for node in nodes.sorted(by: { $0.linkCount > $1.linkCount }).prefix(3) {
            let transport = node.snapshot.transport
            BenchPlan.log("    \(label): a most linked node, \(node.linkCount) links: " + keys.map { "\($0) \(transport[$0] ?? -1)" }.joined(separator: ", "))
        }
    }

    /// Who sent the idle window's beacons: nodes and beacons by the LAN
    /// size each node takes (a node that takes the LAN for small beacons
    /// more often, and every node hears it).
    private static func logBeaconsBySize(_ nodes: [GossipChild], before: [Int], label: String) {
        let bounds = [0, 50, 200, 500, 800, Int.max]
        var line = "  \(label): idle beacons by LAN size taken:"
        for (low, high) in zip(bounds, bounds.dropFirst()) {
            let chosen = nodes.indices.filter { (low..<high).contains(nodes[$0].snapshot.transport["lanSizeEstimate"] ?? 0) }
            let sent = chosen.reduce(0) { $0 + (nodes[$1].snapshot.transport["beaconsSent"] ?? 0) - before[$1] }
            line += " \(low)+: \(chosen.count) nodes sent \(sent);"
        }
        BenchPlan.log(line)
    }

    private static func cpu(_ nodes: [GossipChild]) -> Double {
        nodes.reduce(0) { $0 + (ProcessStats.cpuSeconds($1.pid) ?? 0) }
    }

    /// SIGKILL to all, then reaped: a graceful leave from a thousand nodes
    /// is a thousand leave datagrams heard by everyone, not a figure here.
    private static func stopAll(_ nodes: [GossipChild]) {
        for node in nodes { node.process.kill(SIGKILL) }
        for node in nodes { node.stop(timeout: 1) }
    }
}
