/// Where beacons go when the configuration does not say.
///
/// Loopback (`127.255.255.255`) always, so nodes on one host find each
/// other, plus the broadcast address of every up, broadcast-capable IPv4
/// interface whose address is a LAN address: RFC 1918 private (10/8,
/// 172.16/12, 192.168/16) or link-local (169.254/16). An interface with any
/// other address (a public or a documentation network) is never broadcast on
/// unless named in `P2PConfiguration.broadcastAddresses`: a LAN chat should
/// not announce itself to networks that are not a LAN.
public enum BroadcastScope {
    public static let loopbackBroadcast = "127.255.255.255"

    /// One IPv4 address of an interface, as getifaddrs(3) reports it.
    public struct InterfaceAddress: Hashable, Sendable {
        public var name: String
        public var address: String
        public var netmask: String
        /// The interface's broadcast address, when it has one.
        public var broadcast: String?
        public var isUp: Bool
        public var isLoopback: Bool
        public var supportsBroadcast: Bool

        public init(name: String, address: String, netmask: String, broadcast: String? = nil,
                    isUp: Bool = true, isLoopback: Bool = false, supportsBroadcast: Bool = true) {
            self.name = name
            self.address = address
            self.netmask = netmask
            self.broadcast = broadcast
            self.isUp = isUp
            self.isLoopback = isLoopback
            self.supportsBroadcast = supportsBroadcast
        }
    }

    /// The default scope for `interfaces`: loopback first, then each LAN
    /// interface's broadcast address (the reported one, else address | ~mask),
    /// without duplicates.
    public static func defaultAddresses(for interfaces: [InterfaceAddress]) -> [String] {
        var result = [loopbackBroadcast]
        for interface in interfaces where interface.isUp && !interface.isLoopback && interface.supportsBroadcast {
            guard isLANAddress(interface.address),
                  let address = IPv4Endpoint.parseDottedQuad(interface.address),
                  let mask = IPv4Endpoint.parseDottedQuad(interface.netmask) else { continue }
            let computed = IPv4Endpoint.dottedQuad(address | ~mask)
            let broadcast = interface.broadcast.flatMap { IPv4Endpoint.parseDottedQuad($0) != nil ? $0 : nil } ?? computed
            // A /31 or /32 has no broadcast address worth using.
            guard mask.nonzeroBitCount <= 30, !result.contains(broadcast) else { continue }
            result.append(broadcast)
        }
        return result
    }

    /// Whether beacons sent to a named target stay off the wider network:
    /// this host (127/8), the limited broadcast (never routed), a private or
    /// link-local address, or an address on the network of one of this
    /// host's up interfaces (a LAN numbered with public addresses, as some
    /// campuses are). Anything else (a mistyped or remote address) would
    /// announce the node to a network that is not its LAN, so `start`
    /// refuses it; `--peer` is the way to link across networks.
    public static func staysOnLAN(_ address: String, interfaces: [InterfaceAddress]) -> Bool {
        guard let value = IPv4Endpoint.parseDottedQuad(address) else { return false }
        return staysOnLAN(value, interfaces: interfaces)
    }

    static func staysOnLAN(_ value: UInt32, interfaces: [InterfaceAddress]) -> Bool {
        if IPv4Endpoint.isLoopback(value) || value == .max || isLANAddress(value) { return true }
        return interfaces.contains { interface in
            guard interface.isUp, !interface.isLoopback,
                  let own = IPv4Endpoint.parseDottedQuad(interface.address),
                  let mask = IPv4Endpoint.parseDottedQuad(interface.netmask),
                  mask.nonzeroBitCount >= 8 else { return false }
            return own & mask == value & mask
        }
    }

    /// True for RFC 1918 private and 169.254/16 link-local addresses; false
    /// for everything else, including text that is not a dotted quad.
    public static func isLANAddress(_ address: String) -> Bool {
        guard let value = IPv4Endpoint.parseDottedQuad(address) else { return false }
        return isLANAddress(value)
    }

    static func isLANAddress(_ address: UInt32) -> Bool {
        address >> 24 == 10                    // 10.0.0.0/8
            || address >> 20 == 0xAC1          // 172.16.0.0/12
            || address >> 16 == 0xC0A8         // 192.168.0.0/16
            || address >> 16 == 0xA9FE         // 169.254.0.0/16
    }
}
