import Foundation
import Glibc
import Synchronization

/// A TCP listener that accepts every connection and never says a word: the
/// far end of the dials a forged beacon asks for. Each accepted connection
/// stays open (and costs the dialler a descriptor) until its handshake
/// deadline. Listens on `address` (another 127.x plays a second host).
final class HoldingListener: Sendable {
    let port: Int
    private let fd: Int32
    private let held = Mutex<[Int32]>([])
    private let stopped = Atomic(false)

    init(address: UInt32 = 0x7F00_0002) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr = in_addr(s_addr: address.bigEndian)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: local.sin_port))
        self.fd = fd
        let listener = fd
        Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                let client = accept(listener, nil, nil)
                if client >= 0 { held.withLock { $0.append(client) } }
            }
        }.start()
    }

    /// Connections accepted so far.
    var acceptedCount: Int { held.withLock { $0.count } }

    func close() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        Glibc.close(fd)
        held.withLock { for client in $0 { Glibc.close(client) } }
    }

    deinit { close() }
}
