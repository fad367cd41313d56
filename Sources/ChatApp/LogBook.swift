import ChatCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the full-screen client's log goes instead of the terminal: every
/// record to the data directory's `lanchat.log` (once it is known), the
/// newest lines kept for the `/log` view, and records worth a person's
/// attention (warnings and errors) handed to the screen's status line.
/// The line console and `--json` keep logging to stderr; this is only for
/// a terminal the screen model owns.
///
/// A class around a `Mutex`: the logger's sink is synchronous and called
/// from any thread (see `LogFile`).
public final class LogBook: Sendable {
    /// Lines the `/log` view can show.
    public static let keptLines = 500

    private struct State {
        var recent: [String] = []
        /// Index of the oldest line in `recent` once it is full (a ring).
        var start = 0
        var file: LogFile?
        var attention: (@Sendable (String) -> Void)?
    }
    private let state = Mutex(State())
    private let clock: any ChatClock

    public init(clock: any ChatClock = SystemClock()) {
        self.clock = clock
    }

    /// A logger whose records come here.
    public func logger(label: String = "lanchat", minimumLevel: LogLevel) -> ChatLogger {
        ChatLogger(label: label, minimumLevel: minimumLevel) { [self] record in self.record(record) }
    }

    /// Sends every line from now on to `file`, after the lines kept so far.
    public func attach(_ file: LogFile) {
        let earlier = state.withLock { state in
            state.file = file
            return Self.ordered(state)
        }
        for line in earlier { file.append(line) }
    }

    /// Called with the text of each warning or error from now on.
    public func onAttention(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.attention = handler }
    }

    /// The file lines go to, once attached.
    public var filePath: String? { state.withLock { $0.file?.path } }

    /// The kept lines, oldest first.
    public var recentLines: [String] { state.withLock { Self.ordered($0) } }

    public func record(_ record: LogRecord) {
        // Log lines quote peers' text: sanitized like any terminal output,
        // since the file is read with cat and the lines go to the screen.
        let text = TerminalText.sanitize(record.message)
        let line = "\(Self.timestamp(clock.now())) [\(record.label)] \(record.level): \(text)"
        let (file, attention) = state.withLock { state in
            if state.recent.count < Self.keptLines {
                state.recent.append(line)
            } else {
                state.recent[state.start] = line
                state.start = (state.start + 1) % Self.keptLines
            }
            return (state.file, record.level >= .warning ? state.attention : nil)
        }
        file?.append(line)
        attention?(text)
    }

    private static func ordered(_ state: State) -> [String] {
        Array(state.recent[state.start...] + state.recent[..<state.start])
    }

    /// "2026-11-26T12:03:04.123Z": UTC, so lines from nodes in different
    /// zones sort together.
    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = millis / 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = String(1000 + millis % 1000).dropFirst()
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
