import ChatCore
import Synchronization

/// Collects log records so a test can assert on what was logged.
public final class RecordingLogger: Sendable {
    private let storage = Mutex<[LogRecord]>([])

    public init() {}

    /// A `ChatLogger` whose records land here.
    public func logger(label: String = "test", minimumLevel: LogLevel = .trace) -> ChatLogger {
        ChatLogger(label: label, minimumLevel: minimumLevel) { [self] record in
            storage.withLock { $0.append(record) }
        }
    }

    public var records: [LogRecord] { storage.withLock { $0 } }

    public func messages(at level: LogLevel) -> [String] {
        records.filter { $0.level == level }.map(\.message)
    }

    public func contains(_ fragment: String) -> Bool {
        records.contains { $0.message.contains(fragment) }
    }
}
