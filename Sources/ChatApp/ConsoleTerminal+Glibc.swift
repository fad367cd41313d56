#if canImport(Glibc)
import Glibc
import Synchronization

/// The terminal's settings before the console changed them, restored on
/// quit and at exit (also after an unclean exit through `exit`).
private let savedSettings = Mutex<termios?>(nil)

extension ConsoleTerminal {
    /// The console's terminal when stdin and stdout are both terminals.
    static func standard() -> ConsoleTerminal? {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 ? ConsoleTerminal(input: STDIN_FILENO, output: STDOUT_FILENO) : nil
    }

    /// Keys one at a time, no echo (the console draws the line itself);
    /// Ctrl-C and Ctrl-Z still send their signals; output processing stays
    /// on. Not raw mode: the terminal stays usable if the process dies.
    func enterLineMode() {
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else { return }
        let first = savedSettings.withLock { saved in
            defer { if saved == nil { saved = settings } }
            return saved == nil
        }
        if first { atexit { ConsoleTerminal.restoreSaved() } }
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSANOW, &settings)
    }

    func restore() { Self.restoreSaved() }

    static func restoreSaved() {
        guard var settings = savedSettings.withLock({ $0 }) else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// The next bytes typed; nil at end of input or on error.
    func read() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer[..<count]) }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// Columns of the terminal (80 when it will not say).
    func columns() -> Int { TerminalIO.size(of: output).width }
}
#endif
