import ChatCore
import ChatCrypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import P2PTransport

/// Discovery to a full mesh with every node in this process: `P2PService`s
/// with their own identity keys and default settings, beaconing to
/// 127.255.255.255 on a discovery port of their own, started one after
/// another. Timed from the first start to the moment the last service has
/// all the others; 50 nodes beside 2. Where the time goes is told by how
/// long each pair took once both ran, the transport's counters, and one
/// diagnostic run with a shorter beacon interval.
enum MeshRow {
    struct Trial {
        /// First start to full mesh, seconds (infinity: none in time).
        var mesh: Double
        /// First start to the last start returning.
        var startSpan: Double
        /// Per pair: later start to link (see `MeshWatch.pairDelays`).
        var pairDelays: [Double]
        var counters: [String: Int]
        var leaves: Int
        var linkRange: (min: Int, max: Int)
        /// CPU seconds this process used from the first start to the mesh.
        var cpu: Double
    }

    /// User plus system CPU time of this process so far, seconds.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func run(quick: Bool) async throws -> BenchRow {
        let repetitions = quick ? 2 : 5
        let size = 50
        var big: [Trial] = [], small: [Trial] = [], ten: [Trial] = []
        for _ in 0..<repetitions {
            small.append(try await trial(size: 2, timeout: 10) { _ in })
            ten.append(try await trial(size: 10, timeout: 10) { _ in })
            big.append(try await trial(size: size, timeout: 20) { _ in })
        }
        // One run each with one setting changed: which change moves the figure tells where the time goes.
        var variants: [(name: String, key: String, trial: Trial)] = []
        for (name, key, change) in diagnostics {
            variants.append((name, key, try await trial(size: size, timeout: 20, change)))
        }
        // Nodes that start a process launch apart, as the discovery row's do.
        var staggered: [Double] = []
        for _ in 0..<repetitions {
            let run = try await trial(size: 10, timeout: 10, stagger: .milliseconds(150)) { _ in }
            staggered.append(run.mesh - run.startSpan)
        }
        let handshakeCPU = Measure.percentile(try CryptoRows.handshakeSamples(rounds: 50), 0.5)

        let meshes = big.map(\.mesh), pairs = small.map(\.mesh)
        let p50 = Measure.percentile(meshes, 0.5), worst = meshes.max() ?? .infinity
        let base50 = Measure.percentile(pairs, 0.5), baseWorst = pairs.max() ?? .infinity
        let ten50 = Measure.percentile(ten.map(\.mesh), 0.5), tenWorst = ten.map(\.mesh).max() ?? .infinity
        let delays = big.flatMap(\.pairDelays)
        func share(_ limit: Double) -> Double { delays.isEmpty ? .nan : Double(delays.filter { $0 <= limit }.count) / Double(delays.count) * 100 }
        var totals: [String: Int] = [:]
        for trial in big { totals.merge(trial.counters, uniquingKeysWith: +) }
        func perRun(_ key: String) -> Double { Double(totals[key] ?? 0) / Double(big.count) }
        let handshakes = perRun("linksDialled")
        let cpu = Measure.percentile(big.map(\.cpu), 0.5)
        var numbers: [String: Double] = [
            "p50_s": p50, "max_s": worst, "pair_p50_s": base50, "pair_max_s": baseWorst, "ten_p50_s": ten50, "ten_max_s": tenWorst,
            "start_span_s": Measure.percentile(big.map(\.startSpan), 0.5), "handshake_crypto_p50_us": handshakeCPU,
            "pairs_within_0_3_s_percent": share(0.3), "pairs_within_1_s_percent": share(1), "pairs_within_2_5_s_percent": share(2.5),
            "pair_delay_p50_s": Measure.percentile(delays, 0.5), "pair_delay_min_s": delays.min() ?? .nan,
            "pair_delay_p10_s": Measure.percentile(delays, 0.1), "pair_delay_p99_s": Measure.percentile(delays, 0.99),
        ]
        numbers["cpu_s"] = cpu
        numbers["staggered_10_p50_s"] = Measure.percentile(staggered, 0.5)
        numbers["staggered_10_max_s"] = staggered.max() ?? .nan
        for variant in variants { numbers["variant_\(variant.key)_s"] = variant.trial.mesh }
        for key in ["linksDialled", "linksAccepted", "duplicateLinks", "handshakeTimeout", "dialFailures", "deferredDials",
                    "beaconsSent", "refusedConnectionRate", "handshakeFailures", "evictedPending", "refusedPendingPerAddress"] {
            numbers["per_run_\(key)"] = perRun(key)
        }
        let format = { (seconds: Double) in seconds.isFinite ? String(format: "%.2f s", seconds) : "no mesh" }
        var row = BenchRow(
            key: "mesh", figure: "discovery to full mesh in one process, \(size) nodes on loopback (first start → all linked to all), p50 / max of \(repetitions)",
            value: "\(format(p50)) / \(format(worst))",
            baseline: "2 nodes: \(format(base50)) / \(format(baseWorst)); 10 nodes: \(format(ten50)) / \(format(tenWorst)); beacon interval 2 s",
            target: "< 1 s", met: worst < 1, numbers: numbers)
        row.note = String(
            format: "pairs linked within 0.3 s / 1 s / 2.5 s of the later start: %.0f%% / %.0f%% / %.0f%% (first %@, p10 %@, p50 %@, p99 %@); per run: %.0f links dialled for %d pairs, %.0f duplicates, %.0f handshake timeouts, %.0f pending inbound evicted or refused, %.0f beacons; starting all took %@; the process used %.2f s of CPU until the mesh (p50), of which the handshakes' crypto alone is %.2f s (%.2f ms a link, both sides); one run each with one setting changed: %@; 10 nodes started 0.15 s apart: last start → mesh %@ / %@ (p50 / max)",
            share(0.3), share(1), share(2.5), format(delays.min() ?? .nan), format(Measure.percentile(delays, 0.1)),
            format(Measure.percentile(delays, 0.5)), format(Measure.percentile(delays, 0.99)),
            handshakes, size * (size - 1) / 2, perRun("duplicateLinks"), perRun("handshakeTimeout"),
            perRun("evictedPending") + perRun("refusedPendingPerAddress"), perRun("beaconsSent"),
            format(Measure.percentile(big.map(\.startSpan), 0.5)), cpu, handshakes * handshakeCPU / 1e6, handshakeCPU / 1000,
            variants.map { variant in
                "\(variant.name) \(format(variant.trial.mesh)) (\(variant.trial.counters["linksDialled"] ?? 0) dials, \(variant.trial.counters["handshakeTimeout"] ?? 0) timeouts)"
            }.joined(separator: ", "),
            format(Measure.percentile(staggered, 0.5)), format(staggered.max() ?? .nan))
        if let failed = big.first(where: { !$0.mesh.isFinite }) {
            row.note += "; a run did not mesh: links per node \(failed.linkRange.min)...\(failed.linkRange.max)"
        }
        return row
    }

    /// Settings changed one at a time in the diagnostic runs.
    static let diagnostics: [(name: String, key: String, change: @Sendable (inout P2PConfiguration) -> Void)] = [
        ("beacons every 0.5 s", "beacons_0_5_s", { $0.beaconInterval = .milliseconds(500) }),
        ("at most 2 pending dials a node", "pending_dials_2", { $0.limits.maxPendingDials = 2 }),
        ("handshake timeout (and fallback dial delay) 10 s", "handshake_timeout_10_s", { $0.handshakeTimeout = .seconds(10) }),
    ]

    /// `stagger`: time between starts (0: one after another at once).
    static func trial(size: Int, timeout: Double, stagger: Duration = .zero,
                      _ change: (inout P2PConfiguration) -> Void) async throws -> Trial {
        let port = BenchPorts.freeDiscoveryPort()
        let keys = try (0..<size).map { _ in try IdentityKey.generate() }
        let services = keys.enumerated().map { index, key in
            var configuration = P2PConfiguration()
            configuration.discoveryPort = port
            configuration.broadcastAddresses = ["127.255.255.255"]
            configuration.identityKey = key
            change(&configuration)
            return P2PService(identity: NodeIdentity(number: key.nodeNumber, nickname: "m\(index)"), configuration: configuration)
        }
        let watch = MeshWatch(size: size)
        let followers = services.enumerated().map { index, service in
            Task { await watch.follow(service.events, index: index) }
        }
        let first = ContinuousClock.now
        let cpuAtStart = processCPU()
        var startedAt: [ContinuousClock.Instant] = []
        for service in services {
            if stagger > .zero, !startedAt.isEmpty { try await Task.sleep(for: stagger) }
            try await service.start()
            startedAt.append(ContinuousClock.now)
        }
        let deadline = first + .seconds(timeout)
        while watch.meshAt == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let meshAt = watch.meshAt
        let cpu = processCPU() - cpuAtStart
        var counters: [String: Int] = [:]
        for service in services { counters.merge(await service.diagnostics(), uniquingKeysWith: +) }
        let trial = Trial(mesh: meshAt.map { Measure.seconds($0 - first) } ?? .infinity,
                          startSpan: Measure.seconds((startedAt.last ?? first) - first),
                          pairDelays: watch.pairDelays(numbers: keys.map(\.nodeNumber), startedAt: startedAt),
                          counters: counters, leaves: watch.leaves, linkRange: watch.linkRange, cpu: cpu)
        for service in services { await service.stop() }
        for follower in followers { await follower.value }
        return trial
    }
}
