import ChatCore
import Synchronization

/// Every log line of a few nodes, with the time since the trace began and
/// the node's label: for the failure message of a wait that timed out on
/// a busy machine, so a flake that shows up once in many runs says why.
final class TimedTrace: Sendable {
    private let lines = Mutex<[String]>([])
    private let start = ContinuousClock.now

    init() {}

    /// A logger, at trace level, whose records land here as `label`'s.
    func logger(_ label: String) -> ChatLogger {
        ChatLogger(label: label, minimumLevel: .trace) { [self] record in
            let elapsed = ContinuousClock.now - start
            lines.withLock { $0.append("\(elapsed) \(label) \(record.message)") }
        }
    }

    /// The lines so far, oldest first, one per line.
    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
