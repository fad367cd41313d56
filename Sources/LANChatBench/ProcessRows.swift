import ChatCore
import Foundation
#if canImport(Glibc)
import Glibc
import LANChatHarness
#endif

/// Rows measured on separate node processes: idle cost and discovery to a
/// full mesh (memory under a flood: `FloodRow`).
enum ProcessRows {
    struct Failure: Error, CustomStringConvertible { var description: String }

    // MARK: Idle

    static func idle(quick: Bool) async throws -> BenchRow {
        let window = quick ? 5.0 : 15.0
        let port = BenchPorts.freeDiscoveryPort()
        let node = try ChildNode(arguments: ["--json", "--in-memory", "--nick", "idle", "--broadcast", "127.255.255.255",
                                             "--discovery-port", "\(port)"])
        defer { node.stop() }
        guard await waitFor({ node.counts.readyAt != nil }, timeout: 20) else { throw Failure(description: "idle node did not start") }
        let nodeFigures = try await sample(node.pid, settle: 2, window: window)
        node.stop()
        let empty = try ChildNode(arguments: ["--empty"], node: false)
        defer { empty.stop() }
        let emptyFigures = try await sample(empty.pid, settle: 2, window: window)
        let met = nodeFigures.pss < 10 * 1024 && nodeFigures.cpu < 0.5
        return BenchRow(
            key: "idle", figure: "idle node (alone, beaconing): PSS, CPU over \(Int(window)) s",
            value: "\(Measure.mib(nodeFigures.pss)), \(String(format: "%.2f", nodeFigures.cpu))% of a core",
            baseline: "empty Swift process (same binary, sleeping): \(Measure.mib(emptyFigures.pss)), \(String(format: "%.2f", emptyFigures.cpu))%",
            target: "< 10 MB, < 0.5% of a core", met: met,
            numbers: ["pss_kib": nodeFigures.pss, "rss_kib": nodeFigures.rss, "cpu_percent": nodeFigures.cpu,
                      "empty_pss_kib": emptyFigures.pss, "empty_rss_kib": emptyFigures.rss, "empty_cpu_percent": emptyFigures.cpu])
    }

    /// PSS and RSS (KiB) at the end, and CPU (% of one core) over `window`.
    private static func sample(_ pid: Int32, settle: Double, window: Double) async throws -> (pss: Double, rss: Double, cpu: Double) {
        try await Task.sleep(for: .seconds(settle))
        guard let cpuStart = ProcessStats.cpuSeconds(pid) else { throw Failure(description: "no /proc/\(pid)/stat") }
        let start = ContinuousClock.now
        try await Task.sleep(for: .seconds(window))
        guard let cpuEnd = ProcessStats.cpuSeconds(pid), let pss = ProcessStats.pss(pid), let rss = ProcessStats.rss(pid) else {
            throw Failure(description: "process \(pid) gone")
        }
        return (pss, rss, (cpuEnd - cpuStart) / Measure.seconds(ContinuousClock.now - start) * 100)
    }

    // MARK: Discovery

    /// Between two launches in the discovery row.
    static let launchGap: Duration = .milliseconds(80)

    static func discovery(quick: Bool) async throws -> BenchRow {
        let canUseNamespaces = getuid() == 0
            && ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].contains { FileManager.default.isExecutableFile(atPath: $0) }
            && FileManager.default.isExecutableFile(atPath: ChildNode.nsenter)
        // Namespaces when root (the real thing: one network stack per node),
        // and loopback always, for comparison.
        let modes = canUseNamespaces ? [true, false] : [false]
        let timeout = quick ? 20.0 : 30.0
        var parts: [String] = []
        var notes: [String] = []
        var numbers: [String: Double] = ["beacon_interval_s": 2]
        var met = true
        for namespaces in modes {
            let mode = namespaces ? "netns" : "loopback"
            var results: [String] = []
            // Launched 80 ms apart, as nodes joining a LAN over a few seconds
            // (and as the row's earlier harness happened to launch them), then
            // 50 started at once, all beaconing and dialling together.
            for (size, gap) in [(10, Self.launchGap), (50, Self.launchGap), (50, Duration.zero)] {
                let (mesh, fromLaunch, note, cpu) = try await meshTime(size: size, namespaces: namespaces, launchGap: gap, timeout: timeout)
                let key = gap == .zero ? "\(size)_at_once" : "\(size)"
                numbers["\(mode)_mesh_\(key)_s"] = mesh
                numbers["\(mode)_from_launch_\(key)_s"] = fromLaunch
                numbers["\(mode)_cpu_\(key)_s"] = cpu.total
                numbers["\(mode)_cpu_before_ready_\(key)_s"] = cpu.beforeReady
                let label = gap == .zero ? "\(size) at once" : "\(size)"
                if gap > .zero { met = met && mesh < 1 }
                results.append(mesh.isFinite ? String(format: "%@: %.2f s", label, mesh) : "\(label): no mesh in \(Int(timeout)) s")
                notes.append(String(format: "%@ %@ nodes %.2f s from the first launch", mode, label, fromLaunch) + (note.map { " (\($0))" } ?? ""))
            }
            parts.append("\(mode) " + results.joined(separator: ", "))
        }
        var row = BenchRow(
            key: "discovery", figure: "discovery to full mesh, 10 and 50 nodes launched 80 ms apart (last node ready → all linked to all); 50 launched at once",
            value: parts.joined(separator: "; "), baseline: "beacon interval: 2 s", target: "< 1 s", met: met, numbers: numbers)
        row.note = notes.joined(separator: "; ")
        return row
    }

    /// Seconds from the last node's `ready` to a full mesh (infinity if none
    /// within `timeout`), and from the first launch; the nodes' CPU seconds.
    /// `launchGap`: between one node's launch and the next (zero: as fast as they start).
    private static func meshTime(size: Int, namespaces: Bool, launchGap: Duration, timeout: Double) async throws
        -> (Double, Double, String?, (total: Double, beforeReady: Double)) {
        let network = namespaces ? try VirtualLAN(hosts: size) : nil
        defer { network?.remove() }
        let port = BenchPorts.freeDiscoveryPort()
        let launch = ContinuousClock.now
        var nodes: [ChildNode] = []
        defer {
            for node in nodes { node.requestStop() }
            for node in nodes { node.stop() }
        }
        let traceDirectory = NodeTrace.directory
        for index in 1...size {
            if launchGap > .zero, index > 1 { try await Task.sleep(until: launch + launchGap * (index - 1)) }
            var arguments = ["--json", "--in-memory", "--nick", "h\(index)"]
            if let network {
                arguments += ["--broadcast", network.broadcast]
            } else {
                arguments += ["--broadcast", "127.255.255.255", "--discovery-port", "\(port)"]
            }
            if traceDirectory != nil { arguments += ["--log-level", "debug"] }
            nodes.append(try ChildNode(arguments: arguments, namespace: network?.namespace(index), meshSize: size - 1,
                                       trace: traceDirectory == nil ? nil : NodeTrace(origin: launch)))
        }
        let meshed = await waitFor({ nodes.allSatisfy { $0.counts.meshAt != nil } }, timeout: timeout)
        // The nodes' CPU: how much went to starting (until each one's
        // ready) and how much in all until the mesh.
        let cpuTotal = nodes.reduce(0) { $0 + (ProcessStats.cpuSeconds($1.pid) ?? .nan) }
        let cpuStart = nodes.reduce(0) { $0 + ($1.counts.cpuAtReady ?? .nan) }
        if let traceDirectory {
            for node in nodes { node.send(#"{"cmd":"stats"}"#) }
            _ = await waitFor({ false }, timeout: 1)  // time for the replies: only the trace reads them
            for (index, node) in nodes.enumerated() {
                node.trace?.write(to: "\(traceDirectory)/\(namespaces ? "netns" : "loopback")-\(size)\(launchGap == .zero ? "-at-once" : "")-h\(index + 1).log")
            }
            // Each namespace's own IP, TCP and UDP counters (drops, retransmits, overflows).
            if let network {
                for name in (1...size).map(network.namespace) + [VirtualLAN.prefix + "sw"] {
                    let counters = try? ChildProcess.run("/usr/bin/env", ["ip", "netns", "exec", name, "cat", "/proc/net/snmp", "/proc/net/netstat"], timeout: 20)
                    try? counters?.write(toFile: "\(traceDirectory)/netns-\(size)\(launchGap == .zero ? "-at-once" : "")-\(name).snmp", atomically: false, encoding: .utf8)
                }
            }
        }
        let lastReady = nodes.compactMap { $0.counts.readyAt }.max() ?? launch
        let meshAt = nodes.compactMap { $0.counts.meshAt }.max() ?? ContinuousClock.now
        guard meshed else {
            let linked = nodes.map { $0.counts.peers }
            let ready = nodes.filter { $0.counts.readyAt != nil }.count
            return (.infinity, .infinity, "\(ready) ready, peers per node \(linked.min() ?? 0)...\(linked.max() ?? 0)", (cpuTotal, cpuStart))
        }
        let cpu = String(format: "the nodes used %.2f s of CPU, %.2f s of it before their ready", cpuTotal, cpuStart)
        return (max(0, Measure.seconds(meshAt - lastReady)), Measure.seconds(meshAt - launch), cpu, (cpuTotal, cpuStart))
    }

    static func waitFor(_ condition: () -> Bool, timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}

/// A virtual LAN of network namespaces (DESIGN.md): a bridge in a namespace
/// of its own, and one namespace per host on 10.232.0.0/24. Removed by
/// `remove()`; leftovers of an interrupted run are removed first.
///
/// Unicast between hosts goes through a router on the bridge (as in
/// `scripts/lan-test.sh`), broadcast floods the bridge: the kernel keeps one
/// neighbour (ARP) table for all namespaces, 1024 entries by default, and a
/// flat 50-host full mesh would need ~2500; routed, each host needs one.
final class VirtualLAN: Sendable {
    static let prefix = "lcb-"
    static let router = "10.232.0.254"
    let hosts: Int
    let broadcast = "10.232.0.255"

    init(hosts: Int) throws {
        precondition(hosts < 250)
        self.hosts = hosts
        Self.removeLeftovers()
        let sw = Self.prefix + "sw"
        var commands: [[String]] = [
            ["netns", "add", sw], ["-n", sw, "link", "add", "br0", "type", "bridge"], ["-n", sw, "link", "set", "br0", "up"],
            ["-n", sw, "addr", "add", "\(Self.router)/24", "brd", "+", "dev", "br0"],
            ["netns", "exec", sw, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.send_redirects=0",
             "net.ipv4.conf.default.send_redirects=0", "net.ipv4.conf.br0.send_redirects=0"],
        ]
        for index in 1...hosts {
            let ns = namespace(index)
            commands += [
                ["netns", "add", ns],
                ["link", "add", "\(Self.prefix)v\(index)", "netns", ns, "type", "veth", "peer", "name", "\(Self.prefix)p\(index)", "netns", sw],
                ["-n", sw, "link", "set", "\(Self.prefix)p\(index)", "master", "br0", "up"],
                ["-n", ns, "addr", "add", "10.232.0.\(index)/24", "brd", "+", "dev", "\(Self.prefix)v\(index)"],
                ["-n", ns, "link", "set", "\(Self.prefix)v\(index)", "up"],
                ["-n", ns, "link", "set", "lo", "up"],
                // Two halves are more specific than the subnet's own route.
                ["-n", ns, "route", "add", "10.232.0.0/25", "via", Self.router, "dev", "\(Self.prefix)v\(index)"],
                ["-n", ns, "route", "add", "10.232.0.128/25", "via", Self.router, "dev", "\(Self.prefix)v\(index)"],
                ["netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.conf.all.accept_redirects=0"],
            ]
        }
        do {
            for command in commands { try ChildProcess.run("/usr/bin/env", ["ip"] + command, timeout: 20) }
        } catch {
            remove()
            throw error
        }
    }

    func namespace(_ index: Int) -> String { "\(Self.prefix)h\(index)" }

    func remove() { Self.removeLeftovers() }

    /// Deletes every namespace named `lcb-*` (ours: the prefix is the
    /// benchmark's own). Deleting a namespace deletes its veth ends too.
    static func removeLeftovers() {
        guard let list = try? ChildProcess.run("/usr/bin/env", ["ip", "netns", "list"], timeout: 20) else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            if name.hasPrefix(prefix) { _ = try? ChildProcess.run("/usr/bin/env", ["ip", "netns", "delete", name], timeout: 20) }
        }
    }
}
