import Foundation
import LANChatHarness
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A `lanchat --json --in-memory` node in a child process for the
/// overlay-processes row: it keeps what the row asks of many nodes at once
/// (its number, the numbers it has links to, each public message text's
/// first arrival and how many times it was shown) and nothing else, so a
/// thousand of them fit beside the nodes.
final class GossipChild: Sendable {
    struct State: Sendable {
        var number: UInt64?
        var readyAt: ContinuousClock.Instant?
        /// Numbers of the peers it has an established link to (peerJoined − peerLeft).
        var linked: Set<UInt64> = []
        /// peerJoined and peerLeft lines so far (link churn).
        var linkEvents = 0
        /// Message text → (first arrival, times shown).
        var messages: [String: (first: ContinuousClock.Instant, count: Int)] = [:]
        /// The transport counters of its latest `stats` reply, and how many replies came.
        var transport: [String: Int] = [:]
        var statsReplies = 0
        var exited = false
    }

    let process: ChildProcess
    private let state = Mutex(State())

    /// `environment`: added to this process's own (nil: as it is).
    init(arguments: [String], environment: [String: String]) throws {
        var full = ProcessInfo.processInfo.environment
        full.merge(environment) { _, new in new }
        process = try ChildProcess(ChildProcess.selfPath, ["node"] + arguments, environment: full,
                                   pipeInput: true, pipeErrors: false)
        let fd = process.output
        let thread = Thread { [self] in
            ChildProcess.readLines(from: fd) { line, now in handle(line, at: now) }
            state.withLock { $0.exited = true }
        }
        // The default 8 MiB stack, a thousand times over, is address space
        // only; 256 KiB is plenty for a line reader.
        thread.stackSize = 256 * 1024
        thread.start()
    }

    var pid: Int32 { process.pid }
    var snapshot: State { state.withLock { $0 } }
    var isReady: Bool { state.withLock { $0.readyAt != nil } }
    var linkCount: Int { state.withLock { $0.linked.count } }

    /// Arrival and count of message `text`, if shown.
    func message(_ text: String) -> (first: ContinuousClock.Instant, count: Int)? {
        state.withLock { $0.messages[text] }
    }

    func send(_ command: [String: String]) {
        guard let data = try? JSONSerialization.data(withJSONObject: command, options: [.sortedKeys]) else { return }
        _ = process.write(Array(data) + [0x0A])
    }

    /// Closes its standard input: it leaves and exits.
    func requestStop() { process.closeInput() }

    /// Waits up to `timeout` for it to exit after `requestStop`, then kills it.
    func stop(timeout: Double) { process.stop(within: timeout) }

    /// Open descriptors (entries of /proc/PID/fd).
    var descriptors: Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    private func handle(_ line: ArraySlice<UInt8>, at now: ContinuousClock.Instant) {
        let joined = ByteSearch.contains(line, Self.joined)
        let left = !joined && ByteSearch.contains(line, Self.left)
        let isMessage = !joined && !left && ByteSearch.contains(line, Self.message)
        let isReady = !joined && !left && !isMessage && ByteSearch.contains(line, Self.ready)
        let isStats = !joined && !left && !isMessage && !isReady && ByteSearch.contains(line, Self.statsReply)
        guard joined || left || isMessage || isReady || isStats,
              let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return }
        state.withLock { state in
            if joined || left {
                guard let peer = object["peer"] as? [String: Any], let number = Self.number(peer["number"]) else { return }
                state.linkEvents += 1
                if joined { state.linked.insert(number) } else { state.linked.remove(number) }
            } else if isMessage {
                guard let text = object["text"] as? String else { return }
                if let seen = state.messages[text] {
                    state.messages[text] = (seen.first, seen.count + 1)
                } else {
                    state.messages[text] = (now, 1)
                }
            } else if isStats {
                state.transport = (object["transport"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
                state.statsReplies += 1
            } else {
                state.number = Self.number(object["number"])
                state.readyAt = now
            }
        }
    }

    /// A node number as JSONSerialization hands it (an NSNumber; numbers above Int64.max too).
    private static func number(_ value: Any?) -> UInt64? {
        (value as? NSNumber)?.uint64Value
    }

    private static let message = Array(#""event":"message""#.utf8)
    private static let joined = Array(#""event":"peerJoined""#.utf8)
    private static let left = Array(#""event":"peerLeft""#.utf8)
    private static let ready = Array(#""event":"ready""#.utf8)
    private static let statsReply = Array(#""cmd":"stats""#.utf8)
}
