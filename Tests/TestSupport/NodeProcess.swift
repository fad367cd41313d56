import Foundation
import Synchronization

/// A `lanchat` process under test: stdin to write commands, stdout and
/// stderr collected line by line, waits with deadlines.
public final class NodeProcess: Sendable {
    public let process: Process
    private let stdin: FileHandle
    private let output = Mutex<[String]>([])
    private let errors = Mutex<[String]>([])
    /// Reader threads that reached end of file (two per process).
    private let drainedReaders = Mutex(0)

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
        process = Process()
        let command = if let descriptorLimit {
            ChildLauncher.command("/bin/sh", ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", executable] + arguments)
        } else {
            ChildLauncher.command(executable, arguments)
        }
        process.executableURL = command.executable
        process.arguments = command.arguments
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "NO_COLOR": "1"]
        env.merge(environment) { $1 }
        process.environment = env
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = inPipe
        process.standardOutput = outPipe
        process.standardError = errPipe
        stdin = inPipe.fileHandleForWriting
        try ChildLauncher.run(process)
        startReader(outPipe.fileHandleForReading) { [self] line in output.withLock { $0.append(line) } }
        startReader(errPipe.fileHandleForReading) { [self] line in errors.withLock { $0.append(line) } }
    }

    private func startReader(_ handle: FileHandle, append: @escaping @Sendable (String) -> Void) {
        // Threads because reading a pipe blocks; each ends at EOF.
        let thread = Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            if !pending.isEmpty { append(String(decoding: pending, as: UTF8.self)) }
            self.drainedReaders.withLock { $0 += 1 }
        }
        thread.start()
    }

    public var stdoutLines: [String] { output.withLock { $0 } }
    public var stderrLines: [String] { errors.withLock { $0 } }

    /// Stdout lines parsed as JSON objects (others skipped).
    public var jsonEvents: [[String: Any]] {
        stdoutLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// Writes one line to the process's stdin.
    public func send(_ line: String) {
        try? stdin.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Writes `object` as one JSON line.
    public func send(json object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object)
        send(String(decoding: data, as: UTF8.self))
    }

    public func closeInput() { try? stdin.close() }

    /// Waits for the first JSON event satisfying `match`.
    @discardableResult
    public func event(_ what: String, within timeout: Duration = TestDeadline.standard, where match: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = jsonEvents.first(where: match) { return found }
            if ContinuousClock.now >= deadline {
                throw WaitTimeout(what: "\(what); stdout: \(stdoutLines.suffix(8)); stderr: \(stderrLines.suffix(5))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for a stdout line containing `fragment`.
    @discardableResult
    public func line(containing fragment: String, within timeout: Duration = TestDeadline.standard) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = stdoutLines.first(where: { $0.contains(fragment) }) { return found }
            if ContinuousClock.now >= deadline {
                throw WaitTimeout(what: "line with \(fragment); stdout: \(stdoutLines.suffix(8)); stderr: \(stderrLines.suffix(5))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Sends `signal` (SIGTERM by default).
    public func signal(_ number: Int32 = SIGTERM) { kill(process.processIdentifier, number) }

    /// Waits for exit and returns the status; kills the process at the deadline.
    @discardableResult
    public func waitForExit(within timeout: Duration = TestDeadline.standard) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                kill(process.processIdentifier, SIGKILL)
                throw WaitTimeout(what: "process exit")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        // Let the readers drain what the process wrote last.
        guard await waitUntil("output drained", within: .seconds(5), { drainedReaders.withLock { $0 == 2 } }) else {
            throw WaitTimeout(what: "output drained")
        }
        return process.terminationStatus
    }

    /// Kills the process if it is still running (test cleanup).
    public func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { kill9() }
}
