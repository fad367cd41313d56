/// What one peer (or one address on the LAN) may make a node do before it
/// is refused, throttled or cut off. Anyone on the LAN can connect, so every
/// resource a connection can claim has a bound here; docs/OPERATIONS.md's "Limits a
/// peer meets" lists them with their defaults.
///
/// The defaults leave room for many nodes on one host (they all connect
/// from 127.0.0.1) and for bots; tests raise or lower single limits.
public struct PeerLimits: Sendable, Hashable {
    /// Links in any phase; connections beyond it are closed at once.
    public var maxLinks = 512
    /// Inbound connections that have not finished the hello, in all. When a
    /// new one would exceed it, the oldest unfinished one is closed, so a
    /// crowd of idle connections cannot lock real peers out.
    public var maxPendingLinks = 128
    /// Inbound connections without a finished hello from one IP address;
    /// beyond it, new ones from that address are closed at once.
    public var maxPendingLinksPerAddress = 32
    /// The same for a loopback address (127/8). Those are this host's own
    /// processes, and every node on the host dials from 127.0.0.1, so 50
    /// nodes on one host meet 32 at once at every start; the cap stays,
    /// larger (a local process can open sockets anyway).
    public var maxPendingLinksPerLoopbackAddress = 128
    /// Connection attempts one IP address may make: a burst of this many,
    /// then `connectionsPerSecondPerAddress`. Over it: closed at once.
    public var connectionBurstPerAddress = 64
    public var connectionsPerSecondPerAddress = 16.0
    /// Our own dials that have not finished their handshake, in all and
    /// to one IP address. A beacon can only make us dial its own source
    /// address, and at most this many at once: a flood of invented
    /// identities costs a bounded number of descriptors. Dials over the cap
    /// wait for a free slot.
    public var maxPendingDials = 96
    public var maxPendingDialsPerAddress = 64
    /// Peers announced by beacons that the node remembers (to dial them),
    /// in all and per source address. When either is full, the unlinked
    /// entry that never led to a handshake and whose dials failed most (then
    /// the one heard least recently) makes room; a number that once linked
    /// is never crowded out. If all have proven themselves, the new number
    /// is not recorded.
    public var maxAnnouncements = 1_024
    public var maxAnnouncementsPerAddress = 128
    /// The same share for a loopback address (127/8): every node on this
    /// host beacons from 127.0.0.1, so with 128 a node of 1,000 on one
    /// host knew ~140 of them, took the LAN for that size and beaconed
    /// as for it (issue 29). The total still bounds it; a LAN address
    /// keeps its share (as `maxPendingLinksPerLoopbackAddress`).
    public var maxAnnouncementsPerLoopbackAddress = 1_024
    /// Dials of announcements that never led to a handshake: a burst, then
    /// a rate. A beacon costs nothing to forge, so without it a flood of
    /// invented numbers would make every node on the LAN dial as fast as
    /// the flood (caps bound the dials at once, not per second).
    public var unprovenDialBurst = 64
    public var unprovenDialsPerSecond = 32.0
    /// Frames one link may deliver: a burst of `frameBurst`, then
    /// `framesPerSecond`, where a frame costs one token plus one for each
    /// full `bytesPerFrameToken` of its line. A link over its budget is not
    /// read until the budget refills, so TCP makes the sender wait: nothing
    /// is lost, and the node holds at most a few reads per link.
    public var frameBurst = 2_000
    public var framesPerSecond = 1_000.0
    public var bytesPerFrameToken = 4_096
    /// Message ids each link remembers; a frame repeating one of them is
    /// dropped (DM retries excepted: their repeat is how a lost
    /// acknowledgement is repaired, and the node answers it).
    public var recentIDsPerLink = 256

    public init() {}

    /// The pending-handshake cap for connections from `address`.
    func maxPendingLinks(from address: IPv4Endpoint) -> Int {
        address.isLoopback ? maxPendingLinksPerLoopbackAddress : maxPendingLinksPerAddress
    }

    /// Tokens a line of `byteCount` bytes takes from its link's budget.
    func frameCost(byteCount: Int) -> Double {
        Double(1 + byteCount / bytesPerFrameToken)
    }

    func validate() throws(TransportError) {
        for (name, value) in [("maxLinks", maxLinks), ("maxPendingLinks", maxPendingLinks),
                              ("maxPendingLinksPerAddress", maxPendingLinksPerAddress),
                              ("maxPendingLinksPerLoopbackAddress", maxPendingLinksPerLoopbackAddress),
                              ("connectionBurstPerAddress", connectionBurstPerAddress), ("frameBurst", frameBurst),
                              ("maxPendingDials", maxPendingDials), ("maxPendingDialsPerAddress", maxPendingDialsPerAddress),
                              ("maxAnnouncements", maxAnnouncements), ("maxAnnouncementsPerAddress", maxAnnouncementsPerAddress),
                              ("maxAnnouncementsPerLoopbackAddress", maxAnnouncementsPerLoopbackAddress),
                              ("unprovenDialBurst", unprovenDialBurst),
                              ("bytesPerFrameToken", bytesPerFrameToken), ("recentIDsPerLink", recentIDsPerLink)] where value < 1 {
            throw .invalidConfiguration("\(name) must be at least 1")
        }
        for (name, value) in [("connectionsPerSecondPerAddress", connectionsPerSecondPerAddress),
                              ("framesPerSecond", framesPerSecond), ("unprovenDialsPerSecond", unprovenDialsPerSecond)] where !(value > 0) {
            throw .invalidConfiguration("\(name) must be positive")
        }
        guard frameCost(byteCount: 64 * 1024) <= Double(frameBurst) else {
            throw .invalidConfiguration("frameBurst must pay for one 64 KiB frame")
        }
    }
}
