import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 29's figures on real processes: N `lanchat --json --in-memory`
/// nodes on loopback (100, 300, 1,000; `--quick`: 100), beaconing to
/// 127.255.255.255 on a discovery port of the row's own, against today's
/// full mesh (the overlay's threshold set above N) at 20 and 100 in the
/// same run. For each size: time until every node is in one connected
/// overlay (a full mesh below the threshold), links per node, idle CPU of
/// all nodes together, PSS and descriptors per node, then public messages
/// from several nodes (reach: every other node shows each exactly once;
/// latency from the send command to each node's message line).
///
/// `LANCHAT_BENCH_OVERLAY_SIZES` / `LANCHAT_BENCH_MESH_SIZES` (comma
/// separated, empty for none) pick other sizes, to reproduce one.
enum OverlayProcessRow {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func run(quick: Bool) async throws -> [BenchRow] {
        let environment = ProcessInfo.processInfo.environment
        let overlaySizes = sizes(environment["LANCHAT_BENCH_OVERLAY_SIZES"]) ?? (quick ? [100] : [100, 300, 1_000])
        let meshSizes = sizes(environment["LANCHAT_BENCH_MESH_SIZES"]) ?? [20, 100]
        let descriptorLimit = raiseDescriptorLimit()
        BenchPlan.log("  descriptor limit (soft) raised to \(descriptorLimit) for \(overlaySizes.max() ?? 0) children")
        var baselines: [ProcessSwarm.Figures] = []
        for size in meshSizes {
            baselines.append(try await ProcessSwarm.measure(size: size, fullMesh: true, quick: quick))
        }
        let baseline = baselines.isEmpty ? "-" : baselines.map(\.summary).joined(separator: "; ")
        var rows: [BenchRow] = []
        for size in overlaySizes {
            let figures = try await ProcessSwarm.measure(size: size, fullMesh: false, quick: quick)
            let met = figures.reach >= 1 && figures.latencyP99 < 2 && (size < 1_000 || figures.idleCores < 1)
            var numbers = figures.numbers(prefix: "")
            for mesh in baselines { numbers.merge(mesh.numbers(prefix: "mesh\(mesh.size)_")) { _, new in new } }
            var row = BenchRow(
                key: "overlay-processes",
                figure: "\(size) real node processes on loopback, overlay (threshold 48): formed, links, idle CPU of all, PSS, public messages to all",
                value: figures.summary, baseline: "full mesh: " + baseline,
                target: "reach 100%, p99 < 2 s" + (size >= 1_000 ? ", idle < 1 core" : ""), met: met, numbers: numbers)
            row.note = figures.note
            rows.append(row)
        }
        if rows.isEmpty, !baselines.isEmpty {
            rows.append(BenchRow(key: "overlay-processes", figure: "full mesh only", value: baseline, baseline: "-", target: "-", met: nil))
        }
        return rows
    }

    private static func sizes(_ text: String?) -> [Int]? {
        text.map { $0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
    }

    /// Raises this process's soft descriptor limit to its hard limit (two
    /// pipes a child); the children inherit it. Returns the new soft limit.
    private static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(limit.rlim_cur)
    }
}
