import ChatCore
import Glibc

extension InputLines {
    /// Standard input's lines. A read error ends the input (the node
    /// quits, as at end of input), logged with its errno; a stdin left
    /// non-blocking by the parent is waited on with poll, not taken as
    /// ended.
    public static func standardInput(logger: ChatLogger) -> InputLines {
        InputLines(name: "lanchat-stdin") { buffer in
            while true {
                let count = read(STDIN_FILENO, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                let code = errno
                switch code {
                case EINTR:
                    continue
                case EAGAIN, EWOULDBLOCK:
                    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    _ = poll(&descriptor, 1, -1)
                default:
                    logger.error("cannot read standard input: \(String(cString: strerror(code))) (errno \(code)); taking it as ended")
                    return -1
                }
            }
        }
    }
}
