import Foundation
import Synchronization

/// What one child node printed (its event lines and, with `--log-level
/// debug`, its log), each line stamped in milliseconds since `origin` as
/// the benchmark reads it: how a discovery run's time went, node by node
/// (`LANCHAT_BENCH_TRACE=DIR`, see `ProcessRows.discovery`).
final class NodeTrace: Sendable {
    let origin: ContinuousClock.Instant
    private let lines = Mutex<[String]>([])

    init(origin: ContinuousClock.Instant) { self.origin = origin }

    /// `stream`: "o" for an event line, "e" for a log line, "b" for one the benchmark adds.
    func add(_ stream: String, _ line: some Collection<UInt8>, at instant: ContinuousClock.Instant = .now) {
        let millis = Measure.seconds(instant - origin) * 1000
        let text = String(format: "%9.2f %@ ", millis, stream) + String(decoding: line, as: UTF8.self)
        lines.withLock { $0.append(text) }
    }

    func write(to path: String) {
        let text = lines.withLock { $0.joined(separator: "\n") } + "\n"
        try? text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// The trace directory, when the environment asks for one.
    static var directory: String? {
        guard let path = ProcessInfo.processInfo.environment["LANCHAT_BENCH_TRACE"], !path.isEmpty else { return nil }
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
