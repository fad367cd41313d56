/// Which source addresses a discovery datagram is heard from: those that
/// stay on the LAN (`BroadcastScope.staysOnLAN`). A datagram from anywhere
/// else (a host on the internet reaching the UDP port, or a spoofed source)
/// is dropped before it is decoded, so it can make the node neither answer
/// (a unicast answer goes to the source) nor dial, nor hold an announcement.
///
/// This host's interfaces are read at start and again, at most once per
/// `rereadGap`, when a datagram comes from outside them: an interface that
/// came up since (a LAN numbered with public addresses) is then heard.
struct DiscoverySources {
    static let rereadGap = Duration.seconds(10)

    private var interfaces: [BroadcastScope.InterfaceAddress] = []
    private var readAt: Duration?

    /// Whether a datagram from `address` is heard; `read` gives this host's
    /// interfaces when they are (re)read.
    mutating func admits(_ address: UInt32, now: Duration, read: () -> [BroadcastScope.InterfaceAddress]) -> Bool {
        if BroadcastScope.staysOnLAN(address, interfaces: interfaces) { return true }
        if let readAt, now - readAt < Self.rereadGap { return false }
        interfaces = read()
        readAt = now
        return BroadcastScope.staysOnLAN(address, interfaces: interfaces)
    }
}
