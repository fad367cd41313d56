#if canImport(Glibc)
import Foundation
import Glibc

/// Raw bytes from stdin, read on a thread of their own (read blocks). After
/// input pauses for 50 ms an empty chunk is sent once, so a lone ESC can be
/// told from the start of an arrow key's sequence.
enum TerminalInput {
    static func chunks() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var sentPause = true
            while true {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, sentPause ? 1000 : 50)
                if ready < 0 && errno != EINTR { break }
                if ready <= 0 {
                    if !sentPause { continuation.yield([]); sentPause = true }
                    if case .terminated = continuation.yield([UInt8]()) { break }  // consumer gone
                    continue
                }
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 { break }
                if count < 0 { if errno == EINTR || errno == EAGAIN { continue } else { break } }
                continuation.yield(Array(buffer[0..<count]))
                sentPause = false
            }
            continuation.finish()
        }
        thread.name = "lanchat-keys"
        thread.start()
        return stream
    }
}
#endif
