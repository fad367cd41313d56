#if canImport(Glibc)
import Glibc

/// A TCP listener on 127.0.0.1 (a kernel-chosen port) for a hostile
/// acceptor: a node under test dials it (as a static peer) and the test
/// answers with `RawPeer.accepted(on:...)`. Non-blocking: `accept` polls
/// with a deadline.
/// Its state is two constants (the socket and its port), so it is
/// checked `Sendable`; a class only so that `deinit` closes the socket.
public final class RawListener: Sendable {
    public let fd: Int32
    public let port: Int

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawPeer.Failure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            Glibc.close(fd)
            throw RawPeer.Failure("listen on 127.0.0.1: errno \(error)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { Glibc.close(fd) }

    /// The next connection, non-blocking, or a failure at the deadline.
    public func accept(within timeout: Duration = RawPeer.standardWait) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            let connection = Glibc.accept(fd, nil, nil)
            if connection >= 0 {
                _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
                return connection
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw RawPeer.Failure("accept: errno \(errno)")
            }
            guard ContinuousClock.now < deadline else { throw RawPeer.Failure("nobody dialled within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
#endif
