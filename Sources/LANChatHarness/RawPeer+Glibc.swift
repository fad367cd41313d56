#if canImport(Glibc)
import Glibc

/// The socket calls of `RawPeer`: loopback TCP, non-blocking after the
/// connect. EINTR and would-block never leave this file.
extension RawPeer {
    enum IOResult {
        case bytes(Int)
        case wouldBlock
        case closed
    }

    /// Connects to 127.0.0.1:`port` (at once on loopback unless the accept
    /// queue is full), then makes the socket non-blocking. No Nagle delay:
    /// a small record (a pong, a handshake message) leaves at once, so a
    /// timed round trip times the node.
    static func connectNonBlocking(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Failure("connect to 127.0.0.1:\(port): errno \(error)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    static func close(_ fd: Int32) { Glibc.close(fd) }

    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }

    static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> IOResult {
        while true {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if count >= 0 { return .bytes(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }

    // MARK: For a thread of its own

    /// Writes what is queued, then `bytes`, blocking in poll(2) while the
    /// socket is full, until `deadline`. Only from a thread of the test's
    /// own (a flood, timed round trips), never from a task. Whether all of
    /// it was written; what was not stays queued for the next `poll`, so
    /// the stream stays whole. `bytes` is written from where it lies, not
    /// copied into the queue: a flood of megabytes costs its writes only.
    @discardableResult
    public func writeAll(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count || unsentByteCount > 0 {
            flush()
            if unsentByteCount == 0 {
                switch Self.send(fd, bytes[offset...]) {
                case .bytes(let count):
                    offset += count
                    continue
                case .wouldBlock:
                    break
                case .closed:
                    closedByPeer = true
                    return false
                }
            }
            guard ContinuousClock.now < deadline, !isClosed else {
                if !closedByPeer { outbox.append(contentsOf: bytes[offset...]) }
                return false
            }
            Self.wait(for: Int16(POLLOUT), on: fd, until: deadline)
        }
        return true
    }

    /// Blocks until input is waiting (or `deadline`), then reads it. Only
    /// from a thread of the test's own.
    public func waitReadable(until deadline: ContinuousClock.Instant) {
        Self.wait(for: Int16(POLLIN), on: fd, until: deadline)
        poll()
    }

    static func wait(for events: Int16, on fd: Int32, until deadline: ContinuousClock.Instant) {
        let left = deadline - ContinuousClock.now
        let milliseconds = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
        var entry = pollfd(fd: fd, events: events, revents: 0)
        _ = Glibc.poll(&entry, 1, min(milliseconds, 1_000))
    }
}
#endif
