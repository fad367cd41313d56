/// Severity of a log record, lowest first.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case trace, debug, info, notice, warning, error

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// One log line, handed to a `ChatLogger`'s sink.
public struct LogRecord: Sendable {
    public var level: LogLevel
    public var label: String
    public var message: String

    public init(level: LogLevel, label: String, message: String) {
        self.level = level
        self.label = label
        self.message = message
    }
}

/// The logger library code receives as a parameter; it never prints on its
/// own. A value type around a sink so it is cheap to pass and to relabel.
public struct ChatLogger: Sendable {
    public var label: String
    public var minimumLevel: LogLevel
    private let sink: @Sendable (LogRecord) -> Void

    public init(label: String, minimumLevel: LogLevel = .info, sink: @escaping @Sendable (LogRecord) -> Void) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    /// A logger that drops everything.
    public static let disabled = ChatLogger(label: "", minimumLevel: .error) { _ in }

    /// The same sink under another label, e.g. one per subsystem.
    public func labeled(_ label: String) -> ChatLogger {
        ChatLogger(label: label, minimumLevel: minimumLevel, sink: sink)
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        sink(LogRecord(level: level, label: label, message: message()))
    }

    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
