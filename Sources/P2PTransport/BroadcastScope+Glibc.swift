#if canImport(Glibc)
import Glibc

extension BroadcastScope {
    /// The default scope for this machine's interfaces right now.
    public static func defaultAddresses() -> [String] {
        defaultAddresses(for: currentInterfaces())
    }

    /// The IPv4 addresses of this machine's interfaces (getifaddrs(3)).
    /// Empty if the call fails: the loopback scope still works then.
    public static func currentInterfaces() -> [InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var result: [InterfaceAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor?.pointee {
            cursor = entry.ifa_next
            guard let address = ipv4(entry.ifa_addr), let netmask = ipv4(entry.ifa_netmask) else { continue }
            let flags = Int32(bitPattern: entry.ifa_flags)
            let canBroadcast = flags & Int32(IFF_BROADCAST) != 0
            // ifa_broadaddr is the ifa_ifu union member for broadcast interfaces.
            let broadcast = canBroadcast ? ipv4(entry.ifa_ifu.ifu_broadaddr) : nil
            result.append(InterfaceAddress(
                name: String(cString: entry.ifa_name),
                address: address, netmask: netmask, broadcast: broadcast,
                isUp: flags & Int32(IFF_UP) != 0,
                isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                supportsBroadcast: canBroadcast))
        }
        return result
    }

    private static func ipv4(_ pointer: UnsafeMutablePointer<sockaddr>?) -> String? {
        guard let pointer, pointer.pointee.sa_family == sa_family_t(AF_INET) else { return nil }
        return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
            IPv4Endpoint.dottedQuad(UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
        }
    }
}
#endif
