import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Chat during a transfer: two `lanchat --json` processes on loopback,
/// the sender offering the receiver a 1 GiB file (256 MiB with --quick).
/// Public messages from the sender, one at a time, each timed from its
/// command line written to the sender until its event line is read from
/// the receiver: first with no transfer (the baseline, same pair, same
/// run), then while the file moves. The receiver's RSS is sampled through
/// the transfer.
enum FileChatRow {
    static func run(quick: Bool) async throws -> [BenchRow] {
        let file = try SparseSourceFile(label: "filechat", quick: quick)
        defer { file.remove() }
        let (size, directory, source) = (file.size, file.directory, file.path)

        let port = BenchPorts.freeDiscoveryPort()
        let common = ["--json", "--in-memory", "--broadcast", "127.255.255.255", "--discovery-port", "\(port)", "--beacon-interval", "0.5"]
        let sender = try JSONChild(arguments: common + ["--nick", "sender"])
        defer { sender.stop() }
        let receiver = try JSONChild(arguments: common + ["--nick", "receiver", "--download-dir", directory + "/downloads"])
        defer { receiver.stop() }
        let joined = { (name: String) in { (event: [String: Any]) in
            event["event"] as? String == "peerJoined" && (event["peer"] as? [String: Any])?["nickname"] as? String == name
        } }
        _ = try await sender.waitFor("peer", timeout: 20, joined("receiver"))
        _ = try await receiver.waitFor("peer", timeout: 20, joined("sender"))

        var counter = 0
        /// One message: sent, then waited for (5 s at most); its latency in µs.
        func roundOfOne() -> Double? {
            counter += 1
            let text = "fc-\(counter)"
            let start = ContinuousClock.now
            sender.send(["cmd": "send", "text": text])
            return receiver.waitForArrival(of: text, until: Date().addingTimeInterval(5)).map { Measure.micros($0 - start) }
        }
        let quiet = quick ? 200 : 500
        for _ in 0..<30 { _ = roundOfOne() }  // warm-up
        var idle: [Double] = []
        var lost = 0
        for _ in 0..<quiet {
            if let micros = roundOfOne() { idle.append(micros) } else { lost += 1 }
        }

        // The offer: the sender hashes the file; the first offer comes with
        // a DM request, which the receiver accepts before it sees the offer.
        sender.send(["cmd": "sendFile", "to": "receiver", "path": source])
        let reply = try await sender.waitFor("sendFile reply", timeout: 120) { $0["cmd"] as? String == "sendFile" || $0["event"] as? String == "error" }
        guard let id = reply["id"] as? String else { throw BenchFailure("sendFile refused: \(reply)") }
        let request = try await receiver.waitFor("DM request", timeout: 20) { $0["event"] as? String == "dmRequest" }
        guard let name = (request["peer"] as? [String: Any])?["name"] as? String else { throw BenchFailure("DM request without a name: \(request)") }
        receiver.send(["cmd": "accept", "peer": name])
        _ = try await receiver.waitFor("offer", timeout: 20) { $0["event"] as? String == "fileOffer" && $0["id"] as? String == id }

        let rssBefore = ProcessStats.rss(receiver.pid) ?? 0
        var peak = rssBefore
        let progressBefore = receiver.progressLines
        let accepted = ContinuousClock.now
        receiver.send(["cmd": "acceptFile", "id": id])
        // Messages count from the first progress line (bytes moving) to the end.
        while receiver.progressLines == progressBefore, ContinuousClock.now < accepted + .seconds(30) { usleep(200) }
        var busy: [Double] = []
        let ended = { (line: String) in (line.contains(#""event":"fileDone""#) || line.contains(#""event":"fileFailed""#)) && line.contains(id) }
        var sampled = ContinuousClock.now
        while !receiver.hasLine(ended), ContinuousClock.now < accepted + .seconds(600) {
            if let micros = roundOfOne() { busy.append(micros) } else { lost += 1 }
            // smaps_rollup walks the whole address space: 10 times a second is enough.
            if ContinuousClock.now - sampled > .milliseconds(100) {
                peak = max(peak, ProcessStats.rss(receiver.pid) ?? 0)
                sampled = ContinuousClock.now
            }
        }
        let seconds = Measure.seconds(ContinuousClock.now - accepted)
        let outcome = try await receiver.waitFor("fileDone", timeout: 1) {
            ($0["event"] as? String == "fileDone" || $0["event"] as? String == "fileFailed") && $0["id"] as? String == id
        }
        guard outcome["event"] as? String == "fileDone" else { throw BenchFailure("the transfer failed: \(outcome)") }
        // The last message may have crossed the end: drop it.
        if busy.count > 1 { busy.removeLast() }

        let p50 = Measure.percentile(busy, 0.5), p99 = Measure.percentile(busy, 0.99)
        let idle50 = Measure.percentile(idle, 0.5), idle99 = Measure.percentile(idle, 0.99)
        var latency = BenchRow(
            key: "file-chat",
            figure: "public message, sender to receiver, while a \(size >> 20) MiB file moves between them (two lanchat --json processes, loopback), p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99)) (\(busy.count) messages)",
            baseline: "same pair, no transfer: \(Measure.ms(idle50)) / \(Measure.ms(idle99)) (\(idle.count) messages)",
            target: "p99 < 5 ms", met: lost == 0 && p99 < 5000,
            numbers: ["p50_us": p50, "p99_us": p99, "idle_p50_us": idle50, "idle_p99_us": idle99, "messages": Double(busy.count),
                      "lost": Double(lost), "transfer_seconds": seconds, "transfer_bytes_per_second": Double(size) / seconds])
        latency.note = String(format: "the transfer took %.2f s from accept to the receiver's fileDone (%.0f MB/s, node to node, fsync included)",
                              seconds, Double(size) / seconds / 1e6)
        if lost > 0 { latency.note += "; \(lost) messages did not arrive within 5 s" }
        let rss = BenchRow(
            key: "file-chat", figure: "receiver process RSS growth during that transfer (peak, sampled 10 times a second)",
            value: Measure.mib(peak - rssBefore), baseline: String(format: "RSS before accepting: %@", Measure.mib(rssBefore)),
            target: "< 20 MB", met: peak - rssBefore < 20 * 1024, numbers: ["rss_growth_kib": peak - rssBefore, "rss_before_kib": rssBefore])
        return [latency, rss]
    }
}
