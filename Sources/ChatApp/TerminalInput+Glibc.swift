#if canImport(Glibc)
import Foundation
import Glibc

/// Raw bytes from stdin, read on a thread of their own (read blocks).
/// When a lone ESC is the Escape key is `KeyInput`'s rule, on the session's
/// clock; the poll's timeout only lets the thread notice, about once a
/// second, that nobody reads any more (an empty chunk, ignored).
enum TerminalInput {
    static func chunks() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 1000)
                if ready < 0 && errno != EINTR { break }
                if ready <= 0 {
                    if case .terminated = continuation.yield([UInt8]()) { break }  // consumer gone
                    continue
                }
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 { break }
                if count < 0 { if errno == EINTR || errno == EAGAIN { continue } else { break } }
                continuation.yield(Array(buffer[0..<count]))
            }
            continuation.finish()
        }
        thread.name = "lanchat-keys"
        thread.start()
        return stream
    }
}
#endif
