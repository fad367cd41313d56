import ChatCore

/// What `TransportCore` decided and the shell carries out. The core has
/// already applied the decision to its own tables where it can (a link
/// accepted is in its table); the shell does the socket work, the counting
/// and the telling.
enum TransportAction: Sendable, Hashable {
    /// Take the new connection as link `id`: register it, read it.
    case accept(Int)
    /// Close the new connection at once; it never became a link.
    case refuse(AdmissionRefusal)
    /// Close link `id` and report what that means (`P2PService.drop`).
    case close(Int, CloseReason)
    /// Send a keepalive ping on link `id`.
    case ping(Int)
    /// A replaced link whose peer did not close it in time: close it quietly.
    case release(Int)
    /// Ping link `id` to learn whether it is alive: another instance of
    /// its peer's number claims it (`P2PService.startProbe`). A pong keeps
    /// it; silence closes it as restarted (`.probeUnanswered`).
    case probe(Int)
    /// Dial the announced peer `expecting` at its endpoint.
    case dial(IPv4Endpoint, expecting: NodeNumber)
    /// A due dial over a budget: it waits for a later pass. Only
    /// `planDials` returns it; the core's dial pass records it in the
    /// announcement table and counts it, and never hands it on.
    case deferDial(NodeNumber)
    /// Dial static peer `index` at `endpoint` (its number, once known).
    case dialStatic(Int, IPv4Endpoint, expecting: NodeNumber?)
    /// Look static peer `index`'s name up off the actor, then report
    /// `.staticResolved`.
    case resolveStatic(Int, HostPort)
    /// Broadcast a beacon; report `noteBeaconSent` if one went out.
    case sendBeacon
    /// Answer the newcomer at `source` with a beacon to it alone (`AnswerRoute`).
    case sendAnswer(to: IPv4Endpoint)
    /// Tell the overlay that `number` was heard.
    case peerHeard(NodeNumber)
    /// The overlay has been told (`.peerHeard`, before this): the dial rule
    /// looks at `number` now, with the overlay's view as it is after that.
    case checkDial(NodeNumber)
    /// A datagram that changes nothing, for the log.
    case ignoredBeacon(NodeNumber, IgnoredBeacon)
    /// Another node (instance `instance`, at `source`) announces this node's number.
    case numberClaimed(instance: String, from: IPv4Endpoint)
    /// Make link `id` its peer's one link (`P2PService.establish`); an
    /// inbound one is accepted first (its first record tells the dialler).
    case establish(Int)
}

/// Why a datagram changed nothing.
enum IgnoredBeacon: Sendable, Hashable {
    /// A leave datagram for an unlinked number: anyone can forge it.
    case leave
    /// A leave datagram for a linked number: only its link's leave frame counts.
    case linkedLeave
    /// From `announced`, not the linked peer's address (`linkedAt`), and
    /// saying something else than its link: counted as a conflict.
    case conflict(DiscoveryBeacon.Kind, announced: IPv4Endpoint, linkedAt: IPv4Endpoint?)
}

/// Why a new connection was refused (`PeerLimits`).
enum AdmissionRefusal: Sendable, Hashable {
    /// `maxLinks` links are open.
    case linkCap(Int)
    /// The address spent its connection budget.
    case connectionRate(IPv4Endpoint)
    /// `limit` connections from the address have not finished their hello.
    case pendingPerAddress(IPv4Endpoint, limit: Int)
}

/// Why the core closes a link; the shell turns it into a `LinkDropCause`,
/// a counter and a log line.
enum CloseReason: Sendable, Hashable {
    /// No handshake progress for the handshake timeout (or over its cap).
    case handshakeTimedOut
    /// Nothing received for `after` (the link's dead-peer timeout).
    case peerSilent(after: Duration)
    /// Queued output made no progress for the write timeout.
    case writeStalled
    /// The probe's ping got no pong: the peer restarted.
    case probeUnanswered
    /// `maxPendingLinks` inbound handshakes are open: the oldest makes room.
    case pendingEvicted(limit: Int)
    /// The established link to the same instance wins the tie-break.
    case duplicate
    /// Our own unfinished dial to `peer` wins over its dial to us.
    case ownDialStays(NodeNumber)
    /// `peer`'s dial to us wins over our unfinished dial to it.
    case peersDialStays(NodeNumber)
    /// Our dial reached `peer`, which another instance holds a link as.
    case linkedFromAnotherInstance(NodeNumber)
    /// A held link's rival answered its probe, or linked first.
    case heldRefused(NodeNumber)
    /// A newer held link from `peer` takes the place.
    case newerHeld(NodeNumber)
}
