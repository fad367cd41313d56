import ChatCore

/// Where the answer to a newcomer that must dial us goes (PROTOCOL.md 2.3).
///
/// A broadcast answer wakes every node on the LAN and goes out at most once
/// per `answerBeaconGap`, so newcomers arriving closer together than the gap
/// (a LAN starting up, a test harness launching nodes) each wait for it. A
/// unicast beacon to the newcomer's address wakes that host alone and needs
/// no gap. But nodes on one host share the discovery port, and a unicast
/// datagram reaches only one of their sockets: unicast is safe only where
/// the newcomer is the one node we know at its address. So: broadcast for
/// loopback (every node on this host), for this host's own addresses
/// (where our own beacons come back from), and for an address we know
/// another node at; unicast otherwise, as long as the unicast budget lasts
/// (a flood of invented newcomers, or of spoofed source addresses, gets
/// the broadcast path and its gap).
enum AnswerRoute: Sendable, Hashable {
    case unicast
    case broadcast

    /// Own addresses remembered at most (one per interface is plenty; more
    /// only means broadcast answers for them).
    static let maxOwnAddresses = 16
    /// Unicast answers: a burst of this many, then `unicastPerSecond`.
    static let unicastBurst = 32.0
    static let unicastPerSecond = 16.0

    /// The route for newcomer `number`, heard from `source`.
    static func choose(source: IPv4Endpoint, number: NodeNumber, ownAddresses: Set<UInt32>,
                       announcements: AnnouncementTable) -> AnswerRoute {
        guard !source.isLoopback, !ownAddresses.contains(source.address) else { return .broadcast }
        let shared = announcements.entries.values.contains { $0.endpoint.address == source.address && $0.number != number }
        return shared ? .broadcast : .unicast
    }
}
