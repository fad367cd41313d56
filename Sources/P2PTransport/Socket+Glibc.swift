#if canImport(Glibc)
import Glibc

/// The outcome of a non-blocking read: would-block is a normal answer here,
/// not an error, so EAGAIN never leaves this file.
enum ReadOutcome: Equatable, Sendable {
    case bytes(Int)
    case wouldBlock
    case endOfStream
}

/// Thin wrappers over the BSD socket calls the transport uses. Every
/// descriptor is non-blocking and close-on-exec; EINTR is retried here;
/// failures become `TransportError.systemCall` with errno captured at the
/// call. Descriptors are plain `Int32`s owned by `P2PService`, which closes
/// each exactly once.
enum Socket {
    /// Connections the kernel queues before `accept`. Deep, so a storm of
    /// connections is accepted and refused by the node's own limits rather
    /// than dropped by the kernel, which would make a real peer caught in
    /// it wait for SYN retries (1 s, then 3 s, ...). Capped by somaxconn.
    static let listenBacklog: Int32 = 1024

    /// A TCP listener on all IPv4 interfaces; `port` 0 picks an ephemeral port.
    static func makeTCPListener(port: Int) throws(TransportError) -> Int32 {
        let fd = try make(type: SOCK_STREAM)
        do throws(TransportError) {
            try setFlag(fd, SO_REUSEADDR, "SO_REUSEADDR")
            try bind(fd, to: IPv4Endpoint(address: 0, port: port))
            try check(Glibc.listen(fd, listenBacklog), "listen")
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// The discovery socket: UDP on all interfaces at `port`, shared with
    /// other nodes on this host (SO_REUSEADDR + SO_REUSEPORT; Linux hands
    /// every broadcast datagram to each of them), allowed to broadcast.
    /// The discovery socket's receive buffer asked for (the kernel doubles it for its bookkeeping).
    static let discoveryReceiveBuffer = 1 << 20

    static func makeDiscoverySocket(port: Int) throws(TransportError) -> Int32 {
        let fd = try make(type: SOCK_DGRAM)
        do throws(TransportError) {
            try setFlag(fd, SO_REUSEADDR, "SO_REUSEADDR")
            try setFlag(fd, SO_REUSEPORT, "SO_REUSEPORT")
            try setFlag(fd, SO_BROADCAST, "SO_BROADCAST")
            // Best effort, within the host's rmem_max: the default (about
            // 200 small datagrams) overflowed under a beacon flood whenever
            // the poll thread was off the core for a few milliseconds, and
            // the genuine beacons among the flood were dropped with it.
            var bytes = Int32(discoveryReceiveBuffer)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
            try bind(fd, to: IPv4Endpoint(address: 0, port: port))
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Starts a non-blocking connect. Returns the descriptor and whether the
    /// connect is still in progress (finish with `pendingError` once writable).
    static func connect(to endpoint: IPv4Endpoint) throws(TransportError) -> (fd: Int32, inProgress: Bool) {
        let fd = try make(type: SOCK_STREAM)
        var address = socketAddress(endpoint)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result == 0 { return (fd, false) }
        let error = Glibc.errno
        // A non-blocking connect interrupted by a signal carries on in the
        // background, like EINPROGRESS.
        if error == EINPROGRESS || error == EINTR { return (fd, true) }
        Glibc.close(fd)
        throw failure("connect", error)
    }

    /// SO_ERROR: 0 once a non-blocking connect succeeded, else its errno.
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return Glibc.errno }
        return value
    }

    /// Accepts one pending connection; nil when none is waiting.
    static func accept(_ fd: Int32) throws(TransportError) -> (fd: Int32, peer: IPv4Endpoint)? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        while true {
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(fd, $0, &length)
                }
            }
            if client >= 0 {
                // accept4 is not visible through Glibc's module map, so the
                // flags are set after the fact; nothing runs in between.
                do throws(TransportError) {
                    try setDescriptorFlags(client)
                } catch {
                    Glibc.close(client)
                    throw error
                }
                return (client, IPv4Endpoint(address))
            }
            let error = Glibc.errno
            switch error {
            case EINTR: continue
            // The client gave up before we got to it; not our failure.
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return nil
            default: throw failure("accept", error)
            }
        }
    }

    /// Reads into `buffer` from its start.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) throws(TransportError) -> ReadOutcome {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            let error = Glibc.errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw failure("recv", error)
            }
        }
    }

    /// Writes what the kernel takes now; nil when it takes nothing
    /// (would block). MSG_NOSIGNAL: a closed peer is EPIPE, not SIGPIPE.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Int? {
        while true {
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            let error = Glibc.errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw failure("send", error)
            }
        }
    }

    /// Sends one datagram. False if the socket buffer is full: a beacon is
    /// worth dropping rather than waiting for (the next one follows).
    @discardableResult
    static func sendDatagram(_ fd: Int32, _ bytes: [UInt8], to endpoint: IPv4Endpoint) throws(TransportError) -> Bool {
        var address = socketAddress(endpoint)
        while true {
            let count = bytes.withUnsafeBytes { raw in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), $0,
                                     socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            if count >= 0 { return true }
            let error = Glibc.errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return false
            default: throw failure("sendto \(endpoint)", error)
            }
        }
    }

    /// Receives one datagram into `buffer`; nil when none is waiting. The
    /// count is the datagram's full length (MSG_TRUNC), so an oversized one
    /// is recognisable even though only `buffer.count` bytes were kept.
    static func receiveDatagram(_ fd: Int32, into buffer: inout [UInt8]) throws(TransportError) -> (count: Int, from: IPv4Endpoint)? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.recvfrom(fd, raw.baseAddress, raw.count, Int32(MSG_TRUNC), $0, &length)
                    }
                }
            }
            if count >= 0 { return (count, IPv4Endpoint(address)) }
            let error = Glibc.errno
            switch error {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw failure("recvfrom", error)
            }
        }
    }

    static func localEndpoint(_ fd: Int32) throws(TransportError) -> IPv4Endpoint {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        try check(result, "getsockname")
        return IPv4Endpoint(address)
    }

    /// Sends FIN after what is queued; the peer reads it as end of stream.
    /// The source address the kernel gives a datagram to `endpoint` (a
    /// UDP socket connected there, then getsockname; nothing is sent): a
    /// sealed group beacon binds it (`SealedBeacon`).
    static func sourceAddress(toward endpoint: IPv4Endpoint) throws(TransportError) -> UInt32 {
        let fd = try make(type: SOCK_DGRAM)
        defer { Glibc.close(fd) }
        try setFlag(fd, SO_BROADCAST, "SO_BROADCAST")
        var address = socketAddress(endpoint)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try check(result, "connect \(endpoint)")
        return try localEndpoint(fd).address
    }

    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes `fd`. Errors are not actionable here (Linux frees the
    /// descriptor even when close reports EINTR or EIO), so none is thrown.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// A non-blocking pipe whose read end wakes a poll loop.
    static func makeWakePipe() throws(TransportError) -> (reader: Int32, writer: Int32) {
        var fds: [Int32] = [-1, -1]
        try check(pipe(&fds), "pipe")
        do throws(TransportError) {
            try setDescriptorFlags(fds[0])
            try setDescriptorFlags(fds[1])
        } catch {
            Glibc.close(fds[0])
            Glibc.close(fds[1])
            throw error
        }
        return (fds[0], fds[1])
    }

    // MARK: - Helpers

    private static func make(type: __socket_type) throws(TransportError) -> Int32 {
        let flags = Int32(type.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = Glibc.socket(AF_INET, flags, 0)
        try check(fd, "socket")
        return fd
    }

    /// O_NONBLOCK and FD_CLOEXEC, for descriptors not made by `socket`.
    private static func setDescriptorFlags(_ fd: Int32) throws(TransportError) {
        let status = fcntl(fd, F_GETFL)
        try check(status, "fcntl F_GETFL")
        try check(fcntl(fd, F_SETFL, status | O_NONBLOCK), "fcntl F_SETFL")
        try check(fcntl(fd, F_SETFD, FD_CLOEXEC), "fcntl F_SETFD")
    }

    private static func setFlag(_ fd: Int32, _ option: Int32, _ name: String) throws(TransportError) {
        var on: Int32 = 1
        try check(setsockopt(fd, SOL_SOCKET, option, &on, socklen_t(MemoryLayout<Int32>.size)), "setsockopt \(name)")
    }

    private static func bind(_ fd: Int32, to endpoint: IPv4Endpoint) throws(TransportError) {
        var address = socketAddress(endpoint)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try check(result, "bind \(endpoint)")
    }

    private static func socketAddress(_ endpoint: IPv4Endpoint) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: endpoint.port)).bigEndian
        address.sin_addr = in_addr(s_addr: endpoint.address.bigEndian)
        return address
    }

    private static func check(_ result: Int32, _ name: String) throws(TransportError) {
        if result < 0 { throw failure(name, Glibc.errno) }
    }

    static func failure(_ name: String, _ error: Int32) -> TransportError {
        .systemCall(name: name, errno: error, message: String(cString: strerror(error)))
    }
}

extension IPv4Endpoint {
    init(_ address: sockaddr_in) {
        self.init(address: UInt32(bigEndian: address.sin_addr.s_addr), port: Int(UInt16(bigEndian: address.sin_port)))
    }
}
#endif
