import ChatCore
import ChatScreen
import Foundation
import Synchronization

/// Where the line console writes, and, on a terminal, the prompt it keeps
/// at the bottom: `[#public] text being typed`. Output lines are printed
/// above the prompt (the prompt line is cleared, the lines written, the
/// prompt and the typed text drawn again), so an arriving message never
/// breaks the line being typed.
///
/// On a terminal the console reads keys itself (non-canonical mode, echo
/// off, signals still on, so Ctrl-C quits cleanly); otherwise it writes
/// plain lines and reads stdin lines, as scripts and tests expect.
public final class ConsoleScreen: Sendable {
    /// Whether a prompt is drawn and keys are read from a terminal.
    public let isInteractive: Bool
    private let state: Mutex<State>
    private let terminal: ConsoleTerminal?
    /// Where plain lines go instead of stdout (tests, embedding).
    private let sink: (@Sendable (String) -> Void)?

    private struct State: Sendable {
        var prompt = ""
        var editor = LineEditor()
        var ended = false
    }

    /// A console on stdin/stdout: interactive when both are terminals.
    public static func standard() -> ConsoleScreen {
        ConsoleScreen(terminal: ConsoleTerminal.standard())
    }

    /// Plain lines to stdout, no prompt (stdout is a pipe, a file, a test).
    public static func plain() -> ConsoleScreen { ConsoleScreen(terminal: nil) }

    /// Plain lines handed to `sink`, one call per line.
    public static func capturing(_ sink: @escaping @Sendable (String) -> Void) -> ConsoleScreen {
        ConsoleScreen(terminal: nil, sink: sink)
    }

    init(terminal: ConsoleTerminal?, sink: (@Sendable (String) -> Void)? = nil) {
        self.terminal = terminal
        self.sink = sink
        isInteractive = terminal != nil
        state = Mutex(State())
    }

    /// Prints `lines` above the prompt.
    public func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        guard let terminal else {
            if let sink { lines.forEach(sink) } else { ConsoleTerminal.writeOut(lines.map { $0 + "\n" }.joined()) }
            return
        }
        state.withLock { state in
            terminal.write("\r\u{1B}[K" + lines.map { $0 + "\r\n" }.joined() + promptLine(state, columns: terminal.columns()))
        }
    }

    public func write(_ line: String) { write([line]) }

    /// A command as it was typed, above its output (terminal only: on a
    /// pipe the input is the caller's own).
    public func echo(_ line: String) {
        guard isInteractive else { return }
        let prompt = state.withLock { $0.prompt }
        write(dim(prompt + TerminalText.sanitize(line)))
    }

    /// The room name the prompt shows, e.g. `#public` or `@bob`.
    public func setPrompt(_ room: String) {
        guard let terminal else { return }
        state.withLock { state in
            state.prompt = "[\(room)] "
            terminal.write("\r\u{1B}[K" + promptLine(state, columns: terminal.columns()))
        }
    }

    /// Lines the user submits; finishes at end of input (Ctrl-D on an empty
    /// line, or stdin closed).
    public func lines(logger: ChatLogger) -> InputLines {
        guard let terminal else { return .standardInput(logger: logger) }
        let (stream, continuation) = AsyncStream.makeStream(of: EnteredLine.self)
        terminal.enterLineMode()
        let thread = Thread { [self] in
            while let bytes = terminal.read() {
                for byte in bytes {
                    switch state.withLock({ feed(byte, state: &$0, terminal: terminal) }) {
                    case .some(let line): continuation.yield(.line(line))
                    case nil: break
                    }
                }
                if state.withLock({ $0.ended }) { break }
            }
            continuation.finish()
        }
        thread.name = "lanchat-console"
        thread.start()
        return InputLines(unbounded: stream)
    }

    /// Puts the terminal back as it was (also done at exit).
    public func restore() {
        guard let terminal else { return }
        state.withLock { _ in terminal.write("\r\u{1B}[K") }
        terminal.restore()
    }

    /// Applies one key; returns a submitted line.
    private func feed(_ byte: UInt8, state: inout State, terminal: ConsoleTerminal) -> String? {
        switch state.editor.feed(byte) {
        case .none:
            return nil
        case .changed, .redraw:
            terminal.write("\r\u{1B}[K" + promptLine(state, columns: terminal.columns()))
            return nil
        case .submit(let line):
            // The session echoes a command in order with its output; a
            // message is shown again formatted (time, room, name, delivery).
            terminal.write("\r\u{1B}[K" + promptLine(state, columns: terminal.columns()))
            return line
        case .endOfInput:
            state.ended = true
            terminal.write("\r\u{1B}[K")
            return nil
        }
    }

    /// The prompt and the typed text, scrolled to its end when wider than
    /// the terminal, so it stays on one row and can be redrawn in place.
    private func promptLine(_ state: State, columns: Int) -> String {
        let room = DisplayWidth.tail(of: state.prompt, fitting: max(columns / 2, 1))
        let roomWidth = DisplayWidth.of(room)
        let text = DisplayWidth.tail(of: state.editor.text, fitting: max(columns - roomWidth - 1, 1))
        return "\u{1B}[1m\(room)\u{1B}[0m" + text
    }

    private func dim(_ text: String) -> String { "\u{1B}[2m\(text)\u{1B}[0m" }
}
