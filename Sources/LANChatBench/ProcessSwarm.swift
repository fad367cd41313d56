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
    struct Figures: Sendable {
        var size = 0
        var fullMesh = false
        var launchSeconds = 0.0
        /// Seconds launching waited for the nodes' CPU (`LaunchPacer`).
        var launchWaits = 0.0
        /// From the first launch, and from the last node's ready, to formed (nil: never).
        var formedFromLaunch: Double?
        var formedFromReady: Double?
        var links: [Int] = []
        var components = 0
        var linkEventsIdle = 0
        var idleCores = Double.nan
        var idleWindow = 0.0
        var startCPU = Double.nan
        var pss: [Double] = []
        var descriptors: [Int] = []
        var messages = 0
        var reach = 0.0
        var duplicates = 0
        var latencyP50 = Double.nan
        var latencyP99 = Double.nan
        var latencyMax = Double.nan
        /// The message phase's CPU of all nodes beyond their idle rate, a
        /// message, and overlay frames (gossip, IHAVE, GRAFT, PRUNE) each
        /// node received a message: what bounds the p99 on a shared host.
        var messageCPU = Double.nan
        var overlayFramesPerMessage = Double.nan
        var loadBefore = Double.nan
        var loadIdle = Double.nan
        var loadEnd = Double.nan
        /// Transport counters summed over every node, their growth during the idle window.
        var idleCounters: [String: Int] = [:]
        /// Nodes whose overlay ran above its threshold, and active views (min/p50/max).
        var partial = 0
        var active: [Int] = []
        /// Each node's estimate of the LAN's size at its last beacon turn.
        var sizeEstimates: [Int] = []
        /// Launched, ready and groups every 10 s from the first launch.
        var timeline = SwarmTimeline()
        /// Processes launched (fewer than `size` if launching ran past its share of the budget).
        var launched = 0
        /// Transport counters summed over every node from its start until
        /// formed (or the wait's end), and that span in seconds.
        var startCounters: [String: Int] = [:]
        var startSpan = Double.nan

        /// Broadcasts (beacons of every kind, answers among them) the LAN
        /// carried a second from the first launch until formed, and answers alone.
        var startBeaconsPerSecond: Double { Double(startCounters["beaconsSent"] ?? 0) / startSpan }
        var startAnswersPerSecond: Double { Double(startCounters["answersBroadcast"] ?? 0) / startSpan }

        var summary: String {
            let formed = formedFromLaunch.map { String(format: "formed %.1f s from first launch (%.1f s after last ready, launched over %.1f s, %.0f s of it waiting for CPU)", $0, formedFromReady ?? .nan, launchSeconds, launchWaits) }
                ?? String(format: "NOT formed (%d groups, %d of %d launched, %d ready) after launching over %.1f s (%.0f s waiting for CPU)",
                          components, launched, size, links.count, launchSeconds, launchWaits)
            return "\(size)\(fullMesh ? " full mesh" : ""): \(formed); links min/p50/max \(Self.spread(links)); "
                + String(format: "idle CPU of all %.2f cores; PSS p50 %@ (max %@); fds p50 %d; ", idleCores,
                         Measure.mib(Measure.percentile(pss, 0.5)), Measure.mib(pss.max() ?? .nan),
                         Int(Measure.percentile(descriptors.map(Double.init), 0.5)))
                + String(format: "start: %.1f broadcasts/s LAN-wide (%.1f answers/s); ", startBeaconsPerSecond, startAnswersPerSecond)
                + String(format: "%d messages: reach %.2f%%, %d duplicates, latency p50 %.0f ms / p99 %.0f ms / max %.0f ms; ",
                         messages, reach * 100, duplicates, latencyP50 * 1000, latencyP99 * 1000, latencyMax * 1000)
                + String(format: "a message cost all nodes %.0f ms of CPU beyond idle (%.0f µs a node), %.1f overlay frames received a node; ",
                         messageCPU * 1000, messageCPU * 1e6 / Double(max(1, size)), overlayFramesPerMessage)
                + String(format: "load %.1f/%.1f/%.1f", loadBefore, loadIdle, loadEnd)
        }

        var note: String {
            let views = Self.spread(active)
            let counters = Self.shownCounters.map { "\($0) \(idleCounters[$0] ?? 0)" }.joined(separator: ", ")
            let start = ["beaconsSent", "answersBroadcast", "answersSuppressed", "beaconsSkipped", "beaconsReceived"]
                .map { "\($0) \(startCounters[$0] ?? 0)" }.joined(separator: ", ")
            return String(format: "%d: %d link changes during the %.0f s idle window (transport counters over it, all nodes: %@); %d nodes above the threshold, active views %@, LAN size estimates %@; the nodes used %.1f s of CPU until formed; load average before / idle / end; from start until formed (%.0f s), all nodes: %@; over time: %@",
                          size, linkEventsIdle, idleWindow, counters, partial, views, Self.spread(sizeEstimates), startCPU, startSpan, start, timeline.summary)
        }

        /// min/p50/max of per-node values, "-" if none.
        static func spread(_ values: [Int]) -> String {
            let sorted = values.sorted()
            return sorted.isEmpty ? "-" : "\(sorted.first!)/\(sorted[sorted.count / 2])/\(sorted.last!)"
        }

        static let shownCounters = ["linksAccepted", "linksDialled", "dialFailures", "handshakeTimeout", "overlayCloses",
                                    "beaconsSent", "beaconsReceived", "beaconsSkipped", "answersBroadcast", "refusedAnnouncements",
                                    "overlayFramesSent", "framesSent", "timerWakes", "pollBatches", "deadPeer", "duplicateLinks",
                                    "refusedLinkCap", "refusedConnectionRate"]

        func numbers(prefix: String) -> [String: Double] {
            let sorted = links.sorted()
            return [
                "\(prefix)size": Double(size), "\(prefix)formed_from_launch_s": formedFromLaunch ?? .infinity,
                "\(prefix)formed_from_ready_s": formedFromReady ?? .infinity, "\(prefix)launch_s": launchSeconds,
                "\(prefix)launch_wait_s": launchWaits,
                "\(prefix)links_min": Double(sorted.first ?? 0), "\(prefix)links_p50": Double(sorted.isEmpty ? 0 : sorted[sorted.count / 2]),
                "\(prefix)links_max": Double(sorted.last ?? 0), "\(prefix)idle_cores": idleCores,
                "\(prefix)link_changes_idle": Double(linkEventsIdle), "\(prefix)start_cpu_s": startCPU,
                "\(prefix)pss_p50_kib": Measure.percentile(pss, 0.5), "\(prefix)pss_max_kib": pss.max() ?? .nan,
                "\(prefix)fds_p50": Measure.percentile(descriptors.map(Double.init), 0.5),
                "\(prefix)fds_max": Double(descriptors.max() ?? 0), "\(prefix)reach": reach,
                "\(prefix)duplicates": Double(duplicates), "\(prefix)latency_p50_s": latencyP50,
                "\(prefix)latency_p99_s": latencyP99, "\(prefix)latency_max_s": latencyMax,
                "\(prefix)message_cpu_s": messageCPU, "\(prefix)overlay_frames_per_message": overlayFramesPerMessage,
                "\(prefix)load_before": loadBefore, "\(prefix)load_idle": loadIdle, "\(prefix)load_end": loadEnd,
                "\(prefix)components": Double(components), "\(prefix)launched": Double(launched),
                "\(prefix)start_beacons_per_s": startBeaconsPerSecond, "\(prefix)start_answers_per_s": startAnswersPerSecond,
            ]
        }
    }

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
        let cpuBefore = cpu(nodes)
        let idleStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(figures.idleWindow))
        figures.idleCores = (cpu(nodes) - cpuBefore) / Measure.seconds(ContinuousClock.now - idleStart)
        figures.linkEventsIdle = nodes.reduce(0) { $0 + $1.snapshot.linkEvents } - eventsBefore
        figures.loadIdle = Machine.loadAverage() ?? .nan
        let countersAfter = await counters(nodes)
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
        let framesReceived = (countersEnd.sum["overlayFramesReceived"] ?? 0) - (countersAfter.sum["overlayFramesReceived"] ?? 0)
        // Less the idle window's rate, as for the CPU (shuffles, walks).
        let idleFrames = Double(figures.idleCounters["overlayFramesReceived"] ?? 0) / figures.idleWindow * phase
        figures.overlayFramesPerMessage = (Double(framesReceived) - idleFrames) / Double(max(1, figures.messages * nodes.count))
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
            for index in nodes.indices where index != sender {
                if let seen = nodes[index].message(text) { latencies.append(Measure.seconds(seen.first - sent)) }
            }
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

/// The links the nodes report, as an undirected graph (a link counts when
/// either end reports it).
struct Graph {
    let ready: Int
    /// Links per ready node.
    let links: [Int]
    let components: Int
    /// Nodes in each component, largest first.
    let sizes: [Int]

    init(_ states: [GossipChild.State]) {
        var index: [UInt64: Int] = [:]
        for (i, state) in states.enumerated() { if let number = state.number { index[number] = i } }
        ready = index.count
        var adjacency = Array(repeating: Set<Int>(), count: states.count)
        for (i, state) in states.enumerated() where state.number != nil {
            for peer in state.linked {
                guard let j = index[peer] else { continue }
                adjacency[i].insert(j)
                adjacency[j].insert(i)
            }
        }
        links = states.indices.filter { states[$0].number != nil }.map { adjacency[$0].count }
        var seen = Array(repeating: false, count: states.count)
        var sizes: [Int] = []
        for start in states.indices where states[start].number != nil && !seen[start] {
            var size = 1
            var stack = [start]
            seen[start] = true
            while let next = stack.popLast() {
                for peer in adjacency[next] where !seen[peer] {
                    seen[peer] = true
                    stack.append(peer)
                    size += 1
                }
            }
            sizes.append(size)
        }
        self.components = sizes.count
        self.sizes = sizes.sorted(by: >)
    }

    /// The largest components' sizes, for a log line.
    var sizeText: String {
        sizes.prefix(8).map(String.init).joined(separator: ", ") + (sizes.count > 8 ? ", ..." : "")
    }

    var linkRange: String { ProcessSwarm.Figures.spread(links) }
}
