import Foundation
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
        var exited = false
    }

    let process: Process
    private let input: Pipe
    private let state = Mutex(Counts())
    /// Peers at which `meshAt` is stamped.
    private let meshSize: Int
    /// Every line the node prints, stamped, when tracing.
    let trace: NodeTrace?

    /// `namespace`: run under `ip netns exec`.
    /// `arguments` go to the `node` subcommand, or as they are when `node` is false.
    /// `trace`: keep its event and log lines, stamped (add `--log-level debug` for the log).
    init(arguments: [String], namespace: String? = nil, meshSize: Int = 0, node: Bool = true, trace: NodeTrace? = nil) throws {
        self.meshSize = meshSize
        self.trace = trace
        process = Process()
        if let namespace {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ip", "netns", "exec", namespace, ChildProcess.selfPath] + (node ? ["node"] : []) + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: ChildProcess.selfPath)
            process.arguments = (node ? ["node"] : []) + arguments
        }
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        let errors = trace == nil ? nil : Pipe()
        process.standardError = errors ?? FileHandle.nullDevice
        trace?.add("b", Array("launch".utf8))
        try process.run()
        let reader = output.fileHandleForReading.fileDescriptor
        Thread { [self] in readLines(from: reader) { handle($0) } }.start()
        if let trace, let errors {
            let fd = errors.fileHandleForReading.fileDescriptor
            Thread { [self] in readLines(from: fd, count: false) { trace.add("e", $0) } }.start()
        }
    }

    var counts: Counts { state.withLock { $0 } }
    var pid: Int32 { process.processIdentifier }

    /// Asks the node to quit (end of input) and waits up to `timeout`
    /// before killing it.
    func stop(timeout: Double = 5) {
        requestStop()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Writes one command line to the node's standard input.
    func send(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes the node's standard input: it leaves and exits. Idempotent.
    func requestStop() {
        try? input.fileHandleForWriting.close()
    }

    /// Hands each line read from `fd` to `handle`; `count`: the end of
    /// stream means the node exited.
    private func readLines(from fd: Int32, count counting: Bool = true, _ handle: (ArraySlice<UInt8>) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var line: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            var start = 0
            for index in 0..<count where buffer[index] == 0x0A {
                if line.isEmpty {
                    handle(buffer[start..<index])
                } else {
                    line.append(contentsOf: buffer[start..<index])
                    handle(line[...])
                    line.removeAll(keepingCapacity: true)
                }
                start = index + 1
            }
            if start < count { line.append(contentsOf: buffer[start..<count]) }
        }
        if counting { state.withLock { $0.exited = true } }
    }

    /// Counts event lines by their kind without decoding them all (only
    /// `ready` is parsed, for the port).
    private func handle(_ line: ArraySlice<UInt8>) {
        let now = ContinuousClock.now
        trace?.add("o", line, at: now)
        // Keys are sorted, so "event" is not always first ("automatic" sorts before it).
        if line.firstRange(of: Self.message) != nil {
            state.withLock { $0.messages += 1 }
        } else if line.firstRange(of: Self.joined) != nil || line.firstRange(of: Self.left) != nil {
            let joined = line.firstRange(of: Self.joined) != nil
            state.withLock { counts in
                counts.peers += joined ? 1 : -1
                if counts.peers >= meshSize, meshSize > 0, counts.meshAt == nil { counts.meshAt = now }
            }
        } else if line.firstRange(of: Self.ready) != nil {
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            let cpu = ProcessStats.cpuSeconds(process.processIdentifier)
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
