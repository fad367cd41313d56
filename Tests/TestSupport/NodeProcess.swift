import Foundation
import LANChatHarness
import Synchronization

/// A `lanchat` process under test: stdin to write commands, stdout and
/// stderr collected line by line, waits with deadlines. The process itself
/// is LANChatHarness's `ChildProcess`, as the bench's children are.
public final class NodeProcess: Sendable {
    private let child: ChildProcess
    private let lines = CollectedLines()

    /// What the reader threads collect; they hold this and the child, not
    /// the `NodeProcess`, so dropping one kills its process.
    private final class CollectedLines: Sendable {
        let output = Mutex<[String]>([])
        let errors = Mutex<[String]>([])
        /// Reader threads that reached end of file (two per process).
        let drainedReaders = Mutex(0)
        /// Notified on every line read and at each end of file.
        let changes = ChangeSignal()
    }

    /// The built `lanchat` next to the test bundle (or `LANCHAT_BINARY`).
    public static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["LANCHAT_BINARY"] { return URL(fileURLWithPath: path) }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // Inside an .xctest bundle on macOS the binary is a few levels deep.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("lanchat")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/lanchat")
    }

    /// Starts `lanchat` with `arguments`; `environment` adds to (and
    /// overrides) a minimal one. The process dies with the test binary,
    /// even if that crashes (see `ChildLauncher`).
    /// `executable` replaces `lanchat` (a shell for tests of the launcher).
    /// `descriptorLimit`: run under `ulimit -n` of that many descriptors.
    public init(executable: String = NodeProcess.binary.path, _ arguments: [String], environment: [String: String] = [:], descriptorLimit: Int? = nil) throws {
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "NO_COLOR": "1"]
        env.merge(environment) { $1 }
        let absolute = executable.hasPrefix("/") ? executable : FileManager.default.currentDirectoryPath + "/" + executable
        if let descriptorLimit {
            child = try ChildProcess("/bin/sh", ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", absolute] + arguments,
                                     environment: env, pipeInput: true, pipeErrors: true)
        } else {
            child = try ChildProcess(absolute, arguments, environment: env, pipeInput: true, pipeErrors: true)
        }
        Self.startReader(child, child.output, lines) { lines, line in lines.output.withLock { $0.append(line) } }
        Self.startReader(child, child.errors, lines) { lines, line in lines.errors.withLock { $0.append(line) } }
    }

    /// Reads `fd` to its end on a thread (reading a pipe blocks).
    private static func startReader(_ child: ChildProcess, _ fd: Int32, _ lines: CollectedLines,
                                    append: @escaping @Sendable (CollectedLines, String) -> Void) {
        Thread {
            ChildProcess.readLines(from: fd) { line, _ in
                append(lines, String(decoding: line, as: UTF8.self))
                lines.changes.notify()
            }
            lines.drainedReaders.withLock { $0 += 1 }
            lines.changes.notify()
            withExtendedLifetime(child) {}
        }.start()
    }

    public var pid: Int32 { child.pid }
    /// Whether the process has not exited yet.
    public var isRunning: Bool { child.isRunning }

    public var stdoutLines: [String] { lines.output.withLock { $0 } }
    public var stderrLines: [String] { lines.errors.withLock { $0 } }

    /// Stdout lines parsed as JSON objects (others skipped).
    public var jsonEvents: [[String: Any]] {
        stdoutLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// Writes one line to the process's stdin.
    public func send(_ line: String) {
        child.write(Array((line + "\n").utf8))
    }

    /// Writes `object` as one JSON line.
    public func send(json object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object)
        send(String(decoding: data, as: UTF8.self))
    }

    public func closeInput() { child.closeInput() }

    /// Waits for the first JSON event satisfying `match`; resumes as
    /// lines arrive, each line parsed and matched once.
    @discardableResult
    public func event(_ what: String, within timeout: Duration = TestDeadline.standard, where match: ([String: Any]) -> Bool) async throws -> [String: Any] {
        try await firstLine(within: timeout, failing: what) { line in
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
            return match(object) ? object : nil
        }
    }

    /// Waits for a stdout line containing `fragment`.
    @discardableResult
    public func line(containing fragment: String, within timeout: Duration = TestDeadline.standard) async throws -> String {
        try await firstLine(within: timeout, failing: "line with \(fragment)") { $0.contains(fragment) ? $0 : nil }
    }

    /// The first stdout line `match` maps to a value, waiting for lines as
    /// they are read, until `timeout` on the wall clock.
    private func firstLine<T>(within timeout: Duration, failing what: String, _ match: (String) -> T?) async throws -> T {
        var budget = WaitBudget(within: timeout)
        var checked = 0
        while true {
            let generation = lines.changes.generation
            let fresh = lines.output.withLock { output -> [String] in
                defer { checked = output.count }
                return Array(output[checked...])
            }
            if let found = fresh.lazy.compactMap(match).first { return found }
            if budget.isSpent() {
                throw WaitTimeout(what: "\(what); stdout: \(stdoutLines.suffix(8)); stderr: \(stderrLines.suffix(5))")
            }
            await lines.changes.wait(after: generation, for: budget.nextCheck)
            try Task.checkCancellation()
        }
    }

    /// Sends `signal` (SIGTERM by default).
    public func signal(_ number: Int32 = SIGTERM) { child.kill(number) }

    /// Waits for exit and returns the exit code (128 + signal if killed);
    /// kills the process at the deadline.
    @discardableResult
    public func waitForExit(within timeout: Duration = TestDeadline.standard) async throws -> Int32 {
        // The process's pipes close when it exits: both readers reaching end
        // of file is the event (and all it wrote is read by then).
        var budget = WaitBudget(within: timeout)
        while true {
            let generation = lines.changes.generation
            if lines.drainedReaders.withLock({ $0 == 2 }) { break }
            if budget.isSpent() {
                child.kill(SIGKILL)
                throw WaitTimeout(what: "process exit")
            }
            await lines.changes.wait(after: generation, for: budget.nextCheck)
        }
        // Reaping sends no event; the pipes closed at exit, so this is short.
        guard await waitUntil("process exit", within: .seconds(5), { !child.isRunning }) else {
            child.kill(SIGKILL)
            throw WaitTimeout(what: "process exit")
        }
        return child.wait()
    }

    /// Kills the process if it is still running, and reaps it: a test that
    /// restarts a node on the same data directory right after must not race
    /// the dying process's lock on it (SIGKILL is not instant).
    public func kill9() {
        guard child.isRunning else { return }
        child.kill(SIGKILL)
        child.wait()
    }

    deinit { kill9() }
}
