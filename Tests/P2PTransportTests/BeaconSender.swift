import ChatCore
import Foundation
import Glibc
@testable import P2PTransport

/// Sends hand-made discovery datagrams to 127.255.255.255 from a UDP
/// socket of its own (source 127.0.0.1 and an ephemeral port): a forger on
/// the LAN, as far as loopback can play one.
final class BeaconSender {
    private let fd: Int32
    private let port: Int

    /// `source`: the loopback address to send from (127.0.0.1 by default;
    /// another 127.x address plays a second host).
    init(discoveryPort: Int, source: UInt32 = 0x7F00_0001) {
        port = discoveryPort
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &yes, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr = in_addr(s_addr: source.bigEndian)
        _ = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    deinit { close(fd) }

    func send(_ beacon: DiscoveryBeacon) { send(beacon.encoded()) }

    func send(_ bytes: [UInt8]) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7FFF_FFFF).bigEndian)
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }
}
