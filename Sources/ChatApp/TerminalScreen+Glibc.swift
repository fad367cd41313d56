#if canImport(Glibc)
import Dispatch
import Glibc

/// The terminal the full-screen client draws on: raw mode through termios,
/// the alternate screen, a hidden cursor while drawing, and its size.
///
/// Restoring must also happen when the process dies in ways Swift code never
/// sees return from (a crash, `exit`), so the saved settings live in C-visible
/// globals that an `atexit` hook and fatal-signal handlers can use; only
/// async-signal-safe calls (write, tcsetattr) run there.
final class TerminalScreen: Sendable {
    /// Enters raw mode and the alternate screen, with bracketed paste and
    /// (unless `mouse` is false) SGR mouse reports; nil when stdin is not a
    /// terminal.
    static func enter(mouse: Bool = true) -> TerminalScreen? {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return nil }
        savedSettings = settings
        var raw = settings
        // No echo, no line editing, no signals from Ctrl-C (the client quits
        // itself), no flow control, 8-bit input; output processing kept.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return nil }
        rawModeActive = 1
        atexit { restoreTerminalNow() }
        for number in [SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGHUP, SIGQUIT] {
            signal(number) { number in
                restoreTerminalNow()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
        let screen = TerminalScreen()
        screen.write(enterSequence + (mouse ? mouseSequence : ""))
        return screen
    }

    /// Alternate screen, hidden cursor, cleared; autowrap off, so a glyph
    /// the terminal draws wider than `DisplayWidth` says is clipped at the
    /// right edge instead of wrapping (and scrolling, on the last row);
    /// bracketed paste on, so a pasted text arrives as one `.paste` key.
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[?2004h\u{1B}[2J"
    /// Button presses and the wheel (1000), reported in SGR form (1006),
    /// which has no column limit and tells press from release.
    static let mouseSequence = "\u{1B}[?1000h\u{1B}[?1006h"

    /// Columns and rows, from the kernel (80x24 if it will not say).
    func size() -> (width: Int, height: Int) { TerminalIO.size(of: STDOUT_FILENO) }

    /// SIGWINCH as a stream: the session re-reads the size and redraws.
    func resizes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // A dispatch source is thread-safe; it is only cancelled when the stream ends.
        nonisolated(unsafe) let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { continuation.yield() }
        continuation.onTermination = { _ in source.cancel() }
        source.resume()
        return stream
    }

    /// Writes all of `text`, retrying short writes and EINTR.
    func write(_ text: String) { TerminalIO.writeAll(Array(text.utf8), to: STDOUT_FILENO) }

    /// Leaves the alternate screen, shows the cursor, restores the settings.
    func restore() { restoreTerminalNow() }
}

// C-visible state for the atexit hook and signal handlers (see above); set
// once on entry, read-only afterwards except the flag, which makes restoring
// idempotent.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var rawModeActive: Int32 = 0

private func restoreTerminalNow() {
    guard rawModeActive == 1 else { return }
    rawModeActive = 0
    // Every mode `enter` may have turned on goes off (harmless when it was not).
    let leave = "\u{1B}[0m\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?2004l\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"
    _ = leave.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedSettings)
}
#endif
