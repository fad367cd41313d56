import Foundation

/// The C baseline programs in `scripts/bench/`, compiled once per run with
/// the system C compiler into a temporary directory.
final class CBaselines: Sendable {
    let directory: String
    let net: String
    let sqlite: String

    init() throws {
        let sources = try Self.sourceDirectory()
        directory = NSTemporaryDirectory() + "lanchat-bench-c-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        net = directory + "/net_baseline"
        sqlite = directory + "/sqlite_baseline"
        let cc = ProcessInfo.processInfo.environment["CC"] ?? "/usr/bin/cc"
        try ChildProcess.run(cc, ["-O2", "-o", net, sources + "/net_baseline.c", "-lpthread"])
        try ChildProcess.run(cc, ["-O2", "-o", sqlite, sources + "/sqlite_baseline.c", "-lsqlite3"])
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
