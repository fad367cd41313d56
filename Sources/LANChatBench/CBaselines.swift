import Foundation
import LANChatHarness
import P2PTransport

/// The C baseline programs in `scripts/bench/`, compiled once per run with
/// the system C compiler into a temporary directory.
final class CBaselines: Sendable {
    let directory: String
    let net: String
    let sqlite: String
    let file: String

    init() throws {
        let sources = try Self.sourceDirectory()
        directory = NSTemporaryDirectory() + "lanchat-bench-c-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        net = directory + "/net_baseline"
        sqlite = directory + "/sqlite_baseline"
        file = directory + "/file_baseline"
        let cc = ProcessInfo.processInfo.environment["CC"] ?? "/usr/bin/cc"
        try ChildProcess.run(cc, ["-O2", "-o", net, sources + "/net_baseline.c", "-lpthread"])
        try ChildProcess.run(cc, ["-O2", "-o", sqlite, sources + "/sqlite_baseline.c", "-lsqlite3"])
        try ChildProcess.run(cc, ["-O2", "-o", file, sources + "/file_baseline.c", "-lcrypto", "-lpthread"])
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// p50 and p99 in microseconds.
    func fanoutLatency(peers: Int, messages: Int, bytes: Int) throws -> (p50: Double, p99: Double) {
        try pair(ChildProcess.run(net, ["fanout-latency", "\(peers)", "\(messages)", "\(bytes)"]))
    }

    func roundTrip(messages: Int, bytes: Int) throws -> (p50: Double, p99: Double) {
        try pair(ChildProcess.run(net, ["rtt", "\(messages)", "\(bytes)"]))
    }

    /// Messages per second, each written to every peer.
    func fanoutRate(peers: Int, messages: Int, bytes: Int) throws -> Double {
        try number(ChildProcess.run(net, ["fanout-rate", "\(peers)", "\(messages)", "\(bytes)"]))
    }

    /// Rows per second into a fresh file at `path`.
    func sqliteInsert(path: String, count: Int, batch: Int) throws -> Double {
        defer { Self.removeDatabase(path) }
        Self.removeDatabase(path)
        return try number(ChildProcess.run(sqlite, [path, "\(count)", "\(batch)"]))
    }

    /// p50 and p99 in microseconds of a one-row transaction (BEGIN, the
    /// insert, COMMIT at synchronous=FULL) into a fresh file at `path`.
    func sqliteCommitLatency(path: String, count: Int) throws -> (p50: Double, p99: Double) {
        defer { Self.removeDatabase(path) }
        Self.removeDatabase(path)
        return try pair(ChildProcess.run(sqlite, [path, "\(count)", "1", "latency"]))
    }

    /// `source` copied to `destination` over an encrypted loopback link
    /// by the minimal C pipeline (`file_baseline.c`), with `threads` 2
    /// (hashing on the receiving thread) or 3 (hashing on its own), at
    /// lanchat's transfer threads' niceness.
    func fileCopy(source: String, destination: String, threads: Int) throws -> FileCeiling {
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let parts = try ChildProcess.run(file, [source, destination, "\(threads)", "\(FileTransferService.linkNiceness)"]).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard parts.count == 10 else { throw ChildProcess.Failure(description: "unexpected file baseline output: \(parts)") }
        return FileCeiling(bytes: parts[0], seconds: parts[1], read: parts[2], seal: parts[3], send: parts[4], receive: parts[5],
                           open: parts[6], hash: parts[7], write: parts[8], fsync: parts[9])
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private func pair(_ output: String) throws -> (p50: Double, p99: Double) {
        let parts = output.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard parts.count == 2 else { throw ChildProcess.Failure(description: "unexpected baseline output: \(output)") }
        return (parts[0], parts[1])
    }

    private func number(_ output: String) throws -> Double {
        guard let value = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ChildProcess.Failure(description: "unexpected baseline output: \(output)")
        }
        return value
    }

    /// `scripts/bench` of this checkout: from the working directory (the
    /// usual `swift run` from the package root), else next to this source file.
    private static func sourceDirectory() throws -> String {
        let candidates = [
            FileManager.default.currentDirectoryPath + "/scripts/bench",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().path + "/scripts/bench",
        ]
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/net_baseline.c") }) else {
            throw ChildProcess.Failure(description: "scripts/bench/*.c not found (run from the package root)")
        }
        return found
    }
}

/// One run of the C file pipeline: wall seconds, and per stage the CPU
/// seconds its thread spent (fsync: wall seconds).
struct FileCeiling: Sendable {
    var bytes, seconds, read, seal, send, receive, open, hash, write, fsync: Double

    var rate: Double { bytes / seconds }
    /// CPU seconds of every stage (fsync's writeback is the kernel's, not counted).
    var cpu: Double { read + seal + send + receive + open + hash + write }

    /// Each stage's CPU seconds per GiB, in pipeline order.
    var perGiB: [(String, Double)] {
        let scale = Double(1 << 30) / bytes
        return [("read", read), ("seal", seal), ("send", send), ("recv", receive), ("open", open), ("SHA-256", hash), ("write", write)]
            .map { ($0.0, $0.1 * scale) }
    }
}
