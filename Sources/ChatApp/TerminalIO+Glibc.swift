#if canImport(Glibc)
import Glibc

/// What the two terminal modes share: the line console (`ConsoleTerminal`,
/// for `--plain` on a terminal) and the full screen (`TerminalScreen`)
/// write to the terminal and ask its size the same way. Their modes differ
/// (line mode keeps Ctrl-C's signal and the main screen; raw mode takes
/// every key and the alternate screen), so each keeps its own termios.
enum TerminalIO {
    /// Writes all of `bytes` to `descriptor`, however the kernel splits it;
    /// stops if the terminal went away (nothing left to draw on).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }

    /// Columns and rows of the terminal on `descriptor`, from the kernel
    /// (80 and 24 for what it will not say).
    static func size(of descriptor: Int32) -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 else { return (80, 24) }
        return (size.ws_col > 0 ? Int(size.ws_col) : 80, size.ws_row > 0 ? Int(size.ws_row) : 24)
    }
}
#endif
