import Foundation
import LANChatHarness
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `lanchat --json` node in a child process (this executable's `node`
/// subcommand), optionally inside a network namespace. Its event lines are
/// counted as they arrive; closing its standard input makes it quit.
final class ChildNode: Sendable {
    struct Counts: Sendable {
        var port: Int?
        var readyAt: ContinuousClock.Instant?
        /// The node's CPU seconds when its ready line was read.
        var cpuAtReady: Double?
        var peers = 0
        var meshAt: ContinuousClock.Instant?
        var messages = 0
        /// `stored` from the node's latest `stats` reply (ask with `send`):
        /// a front end reading slower than a flood misses message events
        /// (the node drops the oldest), so they undercount what is stored.
        var stored: Int?
        var exited = false
    }

    let process: ChildProcess
    private let state = Mutex(Counts())
    /// Peers at which `meshAt` is stamped.
    private let meshSize: Int
    /// Every line the node prints, stamped, when tracing.
    let trace: NodeTrace?

    /// `namespace`: run in that network namespace (`ip netns` names it).
    /// `arguments` go to the `node` subcommand, or as they are when `node` is false.
    /// `trace`: keep its event and log lines, stamped (add `--log-level debug` for the log).
    init(arguments: [String], namespace: String? = nil, meshSize: Int = 0, node: Bool = true, trace: NodeTrace? = nil) throws {
        self.meshSize = meshSize
        self.trace = trace
        let command = (node ? ["node"] : []) + arguments
        trace?.add("b", Array("launch".utf8))
        if let namespace {
            // Only the network namespace: `ip netns exec` also makes a mount
            // namespace and remounts /sys, and 30 of those at once stalled
            // every process on the machine for 2 s (the nodes already meshing
            // too: handshakes timed out, links were dialled twice).
            process = try ChildProcess(ChildNode.nsenter, ["--net=/run/netns/\(namespace)", ChildProcess.selfPath] + command,
                                  pipeInput: true, pipeErrors: trace != nil)
        } else {
            process = try ChildProcess(ChildProcess.selfPath, command, pipeInput: true, pipeErrors: trace != nil)
        }
        let reader = process.output
        Thread { [self] in
            ChildProcess.readLines(from: reader) { line, now in handle(line, at: now) }
            state.withLock { $0.exited = true }  // end of stream: the node exited
        }.start()
        if let trace, process.errors >= 0 {
            let fd = process.errors
            Thread { [process] in
                ChildProcess.readLines(from: fd) { line, now in trace.add("e", line, at: now) }
                withExtendedLifetime(process) {}
            }.start()
        }
    }

    /// util-linux's nsenter (enters a namespace `ip netns add` made), found once.
    static let nsenter = ["/usr/bin/nsenter", "/bin/nsenter", "/usr/sbin/nsenter"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/nsenter"

    var counts: Counts { state.withLock { $0 } }
    var pid: Int32 { process.pid }

    /// Asks the node to quit (end of input) and waits up to `timeout`
    /// before killing it.
    func stop(timeout: Double = 5) {
        process.stop(within: timeout)
    }

    /// Writes one command line to the node's standard input.
    func send(_ line: String) {
        _ = process.write(Array((line + "\n").utf8))
    }

    /// Closes the node's standard input: it leaves and exits. Idempotent.
    func requestStop() {
        process.closeInput()
    }

    /// Counts event lines by their kind without decoding them all (only
    /// `ready` is parsed, for the port).
    private func handle(_ line: ArraySlice<UInt8>, at now: ContinuousClock.Instant) {
        trace?.add("o", line, at: now)
        // Keys are sorted, so "event" is not always first ("automatic" sorts before it).
        if ByteSearch.contains(line, Self.message) {
            state.withLock { $0.messages += 1 }
        } else if ByteSearch.contains(line, Self.joined) || ByteSearch.contains(line, Self.left) {
            let joined = ByteSearch.contains(line, Self.joined)
            state.withLock { counts in
                counts.peers += joined ? 1 : -1
                if counts.peers >= meshSize, meshSize > 0, counts.meshAt == nil { counts.meshAt = now }
            }
        } else if ByteSearch.contains(line, Self.statsReply) {
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            if let stored = object?["stored"] as? Int { state.withLock { $0.stored = stored } }
        } else if ByteSearch.contains(line, Self.ready) {
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            let cpu = ProcessStats.cpuSeconds(process.pid)
            state.withLock { counts in
                counts.port = object?["port"] as? Int
                counts.readyAt = now
                counts.cpuAtReady = cpu
            }
        }
    }

    private static let message = Array(#""event":"message""#.utf8)
    private static let joined = Array(#""event":"peerJoined""#.utf8)
    private static let left = Array(#""event":"peerLeft""#.utf8)
    private static let ready = Array(#""event":"ready""#.utf8)
    private static let statsReply = Array(#""cmd":"stats""#.utf8)
}

/// Memory and CPU of a process, from /proc.
enum ProcessStats {
    /// Proportional set size in KiB (shared pages divided among the
    /// processes mapping them), from smaps_rollup.
    static func pss(_ pid: Int32) -> Double? { rollup(pid, field: "Pss:") }

    static func rss(_ pid: Int32) -> Double? { rollup(pid, field: "Rss:") }

    private static func rollup(_ pid: Int32, field: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
        return nil
    }

    /// User plus system CPU time so far, in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
