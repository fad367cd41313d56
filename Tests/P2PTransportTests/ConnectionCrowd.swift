import Foundation
import Glibc

/// Many raw TCP connections to 127.0.0.1:`port` that never finish a handshake:
/// a slowloris crowd or a connection storm. Connects are non-blocking, so
/// the test thread never waits on a full accept queue; the kernel finishes
/// them (retrying SYNs the queue dropped) on its own.
final class ConnectionCrowd {
    private(set) var descriptors: [Int32] = []

    /// Connections whose socket or connect failed at once (descriptors or
    /// ports ran out): a test that counts on all `count` checks this is 0.
    private(set) var failedCount = 0

    /// `source`: the loopback address the crowd dials from (any of 127/8
    /// is this host). One of its own keeps the node's per-address counts
    /// to the crowd: other nodes on the host (stray dials from other tests
    /// or test runs) all come from 127.0.0.1.
    init(count: Int, port: Int, from source: UInt32 = 0x7F00_0001) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr = in_addr(s_addr: source.bigEndian)
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { failedCount += 1; continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if source != 0x7F00_0001 {
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard bound == 0 else { Glibc.close(fd); failedCount += 1; continue }
            }
            let started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard started == 0 || errno == EINPROGRESS else { Glibc.close(fd); failedCount += 1; continue }
            descriptors.append(fd)
        }
    }

    deinit { close() }

    /// Writes `bytes` on every connection that takes them now.
    func send(_ bytes: [UInt8]) {
        for fd in descriptors {
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Connections the service has closed (end of stream or reset).
    var closedCount: Int {
        var byte: UInt8 = 0
        return descriptors.count { fd in
            let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
            return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)
        }
    }

    /// Connections the kernel has completed (the node's accept queue holds
    /// them, or it took them) or that have ended since: with all of them
    /// there, every connection has reached the node.
    var connectedCount: Int {
        descriptors.count { fd in
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            return poll(&entry, 1, 0) == 1 && entry.revents != 0
        }
    }

    /// How many connections are in each TCP state, as the kernel of this
    /// (the dialling) end sees them: "SYN_SENT" never reached the listener
    /// (the kernel still retries its SYN), "CLOSE_WAIT" was closed by the
    /// node, "ESTABLISHED" is open at this end. Said on failure.
    var states: [String: Int] {
        let names: [UInt8: String] = [1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2",
                                      6: "TIME_WAIT", 7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 10: "LISTEN", 11: "CLOSING"]
        var counts: [String: Int] = [:]
        for fd in descriptors {
            counts[Self.state(of: fd).flatMap { names[$0] } ?? "unknown", default: 0] += 1
        }
        return counts
    }

    /// `tcpi_state`, the first byte of `struct tcp_info` (TCP_INFO is 11 in
    /// <netinet/tcp.h>, which Glibc's module does not export).
    static func state(of fd: Int32) -> UInt8? {
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        guard getsockopt(fd, Int32(IPPROTO_TCP), 11, &info, &length) == 0, length > 0 else { return nil }
        return info[0]
    }

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors.removeAll()
    }
}
