import Foundation
import Glibc

/// Many raw TCP connections to 127.0.0.1:`port` that never finish a handshake:
/// a slowloris crowd or a connection storm. Connects are non-blocking, so
/// the test thread never waits on a full accept queue; the kernel finishes
/// them (retrying SYNs the queue dropped) on its own.
final class ConnectionCrowd {
    private(set) var descriptors: [Int32] = []

    init(count: Int, port: Int) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
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

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors.removeAll()
    }
}
