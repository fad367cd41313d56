import ChatCore
import ChatCrypto
import Foundation
import LANChatHarness

/// A node process's memory under a flood of a million signed public
/// messages, with its history on disk and with `--in-memory` (the bots'
/// default): memory must stay flat, since a room holds at most 100
/// messages in memory and an in-memory store keeps a bounded window.
///
/// The flood comes from `peers` raw v2 peers at once, each with a key of
/// its own, as a Sybil flood would: one link's frame budget (1000 frames/s
/// after a burst of 2000, see docs/OPERATIONS.md "Limits a peer meets") paces a single
/// peer, so one peer would take over 16 minutes for the million. Each peer
/// signs and seals its share on a thread of its own as it writes (ids
/// increasing per peer, as real senders' are).
enum FloodRow {
    static let peers = 20
    typealias Failure = ProcessRows.Failure

    static func run(quick: Bool, inMemory: Bool) async throws -> BenchRow {
        let total = quick ? 100_000 : 1_000_000
        let share = total / peers
        let directory = NSTemporaryDirectory() + "lanchat-bench-flood-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = inMemory ? ["--in-memory"] : ["--data-dir", directory]
        let trace = NodeTrace.directory.map { _ in NodeTrace(origin: .now) }
        let node = try ChildNode(arguments: ["--json", "--nick", "flooded", "--broadcast", "127.255.255.255",
                                             "--discovery-port", "\(BenchPorts.freeDiscoveryPort())"] + store, trace: trace)
        defer { if let trace, let dir = NodeTrace.directory { trace.write(to: dir + "/flood-\(inMemory ? "memory" : "disk").txt") } }
        defer { node.stop() }
        guard await ProcessRows.waitFor({ node.counts.port != nil }, timeout: 20), let port = node.counts.port else {
            throw Failure(description: "flooded node did not start")
        }
        try await Task.sleep(for: .seconds(2))
        guard let idle = ProcessStats.pss(node.pid) else { throw Failure(description: "no PSS") }
        let linked = await onThread { Result { try (0..<peers).map { try RawPeer.link(to: port, key: IdentityKey.generate(), nickname: "flood\($0)") } } }
        let flooders = try linked.get()
        let deadline = Date().addingTimeInterval(quick ? 90 : 300)
        let writers = flooders.enumerated().map { index, peer in
            Task { await onThread { write(share, from: peer, index: index, until: deadline) } }
        }
        var peak = idle
        var peakAfterQuarter = 0.0
        var lowAfterQuarter = Double.infinity
        /// (messages stored, PSS) after the first quarter: the trend's samples.
        var samples: [(stored: Double, pss: Double)] = []
        var atTenth: Double?
        var atQuarter: Double?
        let start = ContinuousClock.now
        while (node.counts.stored ?? 0) < total, Date() < deadline, !node.counts.exited {
            node.send(#"{"cmd":"stats"}"#)
            try await Task.sleep(for: .milliseconds(250))
            guard let pss = ProcessStats.pss(node.pid) else { break }
            let storedNow = node.counts.stored ?? 0
            peak = max(peak, pss)
            if atTenth == nil, storedNow >= total / 10 { atTenth = pss }
            if atQuarter == nil, storedNow >= total / 4 { atQuarter = pss }
            if atQuarter != nil {
                peakAfterQuarter = max(peakAfterQuarter, pss)
                lowAfterQuarter = min(lowAfterQuarter, pss)
                samples.append((Double(storedNow), pss))
            }
        }
        let elapsed = Measure.seconds(ContinuousClock.now - start)
        let stored = node.counts.stored ?? 0
        let shown = node.counts.messages
        let end = ProcessStats.pss(node.pid) ?? .nan
        var written = 0
        for writer in writers { written += await writer.value }
        // After the flood the node gives its free heap back (the app's
        // MemoryTrimmer, at its first quiet 5 s tick): the lowest PSS within 12 s.
        var after = end
        let quietUntil = ContinuousClock.now + .seconds(12)
        while ContinuousClock.now < quietUntil, !node.counts.exited {
            try await Task.sleep(for: .milliseconds(500))
            if let pss = ProcessStats.pss(node.pid) { after = min(after, pss) }
        }
        let tenth = atTenth ?? .nan, quarter = atQuarter ?? .nan
        // Flat: once the node's queues have filled (a quarter stored: at 20
        // peers' full speed the first tenth is still the ramp, 5 s of the
        // bursts every link may send), memory does not grow with the
        // messages: the least-squares trend of PSS against messages stored
        // over the other 75% adds less than 8 MB across them (a history
        // held in memory would add hundreds; 8 MB over 750k is 11 bytes a
        // message). Two single samples would judge the allocator's wander
        // of 10-20 MB up and down instead, so the band is reported, not
        // judged; so is the level above idle, which is what the node holds
        // while flooded at full speed (its inbox up to the high-water
        // mark, steps of up to 4096 frames in flight, up to 8 MB of events
        // for a client that lags, and the batch it took).
        let growth = Self.trend(samples) * 0.75 * Double(total)
        let met = stored >= total * 9 / 10 && samples.count >= 8 && growth < 8 * 1024
        let kind = inMemory ? "in memory (--in-memory)" : "on disk"
        var row = BenchRow(
            key: inMemory ? "flood-memory" : "flood",
            figure: "node memory under a \(total / 1000)k-message flood from \(peers) peers (\(kind), --json), PSS",
            value: String(format: "trend over the last 75%%: %+.1f MB; ", growth / 1024)
                + "between \(Measure.mib(lowAfterQuarter)) and \(Measure.mib(peakAfterQuarter)) after 25% (at 10% \(Measure.mib(tenth)), "
                + "at 25% \(Measure.mib(quarter)), end \(Measure.mib(end)), peak \(Measure.mib(peak)); 12 s after the flood: \(Measure.mib(after)))",
            baseline: "same node idle: \(Measure.mib(idle))", target: "flat after the ramp: the trend over the last 75% < +8 MB", met: met,
            numbers: ["idle_pss_kib": idle, "peak_pss_kib": peak, "end_pss_kib": end, "tenth_pss_kib": tenth,
                      "quarter_pss_kib": quarter, "peak_after_quarter_pss_kib": peakAfterQuarter, "after_pss_kib": after,
                      "low_after_quarter_pss_kib": lowAfterQuarter, "trend_growth_kib": growth,
                      "messages": Double(total), "written": Double(written), "stored": Double(stored), "shown": Double(shown),
                      "seconds": elapsed, "per_second": Double(stored) / elapsed])
        row.note = "\(kind): \(stored) of \(total) messages stored in \(String(format: "%.1f", elapsed)) s (\(Measure.rate(Double(stored) / elapsed))), "
            + "\(shown) of them shown to the --json reader (the node drops the oldest events for a reader that lags); "
            + "each peer is paced by its link's frame budget (TCP holds the rest) and signs and seals as it writes, on the same 2 cores"
        if stored < total { row.note += "; \(written) written, \(stored) stored in time" }
        return row
    }

    /// The least-squares slope of PSS (KiB) against messages stored, in KiB
    /// a message; 0 with fewer than two distinct counts.
    static func trend(_ samples: [(stored: Double, pss: Double)]) -> Double {
        guard samples.count >= 2 else { return 0 }
        let n = Double(samples.count)
        let meanX = samples.reduce(0) { $0 + $1.stored } / n
        let meanY = samples.reduce(0) { $0 + $1.pss } / n
        let sxx = samples.reduce(0) { $0 + ($1.stored - meanX) * ($1.stored - meanX) }
        guard sxx > 0 else { return 0 }
        let sxy = samples.reduce(0) { $0 + ($1.stored - meanX) * ($1.pss - meanY) }
        return sxy / sxx
    }

    /// Writes `count` signed public messages from `peer` in slices of 500
    /// records; returns how many were written before the deadline or an
    /// error (the node closing the link).
    private static func write(_ count: Int, from peer: RawPeer, index: Int, until deadline: Date) -> Int {
        var sent = 0
        while sent < count, Date() < deadline {
            let millis = Timestamp.millis(from: Date())
            let slice = sent..<min(sent + 500, count)
            var bytes: [UInt8] = []
            do {
                for number in slice {
                    let id = MessageID(millis: millis, random: (UInt64(index), UInt64(number)))
                    let text = NetworkRows.text(index * count + number)
                    bytes.append(contentsOf: peer.seal(peer.signedMessage(text, millis: millis, messageId: id)))
                }
                try peer.write(bytes)
            } catch {
                break
            }
            sent = slice.upperBound
        }
        return sent
    }
}
