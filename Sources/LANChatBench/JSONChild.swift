import Foundation
import LANChatHarness
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `lanchat --json` node in a child process (this executable's `node`
/// subcommand) whose lines the benchmark reads: each public message's
/// arrival is stamped as its line is read, and the other event and reply
/// lines are kept (progress lines only counted) so a row can wait for one.
final class JSONChild: Sendable {
    struct Lines: Sendable {
        /// Message text → when its line was read.
        var arrivals: [String: ContinuousClock.Instant] = [:]
        /// Event and reply lines other than messages and progress, in order.
        var other: [String] = []
        var progress = 0
        var exited = false
    }

    let process: ChildProcess
    private let lines = Mutex(Lines())
    /// Signalled at each message line, so a waiter sleeps instead of polling.
    private let arrived = NSCondition()

    init(arguments: [String]) throws {
        process = try ChildProcess(ChildProcess.selfPath, ["node"] + arguments, pipeInput: true, pipeErrors: false)
        let fd = process.output
        Thread { [self] in
            ChildProcess.readLines(from: fd) { line, now in handle(line, at: now) }
            lines.withLock { $0.exited = true }
        }.start()
    }

    var pid: Int32 { process.pid }

    /// Writes one JSON command line.
    func send(_ command: [String: String]) {
        guard let data = try? JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]) else { return }
        _ = process.write(Array(data) + [0x0A])
    }

    func arrival(of text: String) -> ContinuousClock.Instant? { lines.withLock { $0.arrivals[text] } }

    /// When the message `text` arrived, waiting for it until `deadline`.
    func waitForArrival(of text: String, until deadline: Date) -> ContinuousClock.Instant? {
        arrived.lock()
        defer { arrived.unlock() }
        while true {
            if let instant = arrival(of: text) { return instant }
            guard arrived.wait(until: deadline) else { return arrival(of: text) }
        }
    }
    var progressLines: Int { lines.withLock { $0.progress } }

    /// Whether a kept line passes `test` (raw text, not parsed).
    func hasLine(_ test: (String) -> Bool) -> Bool { lines.withLock { $0.other.contains(where: test) } }

    /// The first kept line, parsed, that `matches`; waits up to `timeout` seconds.
    func waitFor(_ what: String, timeout: Double, _ matches: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var seen = 0
        while ContinuousClock.now < deadline {
            let (fresh, exited) = lines.withLock { ($0.other[seen...].map { $0 }, $0.exited) }
            for line in fresh {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], matches(object) { return object }
            }
            seen += fresh.count
            if exited { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ChildProcess.Failure(description: "no \(what) within \(timeout) s")
    }

    /// Closes its standard input, waits up to 5 s, then kills it.
    func stop() {
        process.stop()
    }

    private func handle(_ line: ArraySlice<UInt8>, at now: ContinuousClock.Instant) {
        if ByteSearch.contains(line, Self.message) {
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            if let text = object?["text"] as? String {
                arrived.lock()
                lines.withLock { $0.arrivals[text] = now }
                arrived.broadcast()
                arrived.unlock()
            }
        } else if ByteSearch.contains(line, Self.progress) {
            lines.withLock { $0.progress += 1 }
        } else {
            let text = String(decoding: line, as: UTF8.self)
            lines.withLock { $0.other.append(text) }
        }
    }

    private static let message = Array(#""event":"message""#.utf8)
    private static let progress = Array(#""event":"fileProgress""#.utf8)
}
