import ChatCore

/// What the shell (`P2PService`) tells `TransportCore` happened, for the
/// inputs that call for a decision. Inputs that only record a time on the
/// hot path (a record received, a frame queued) are plain methods of the
/// core instead (`noteReceived`, `noteSent`), so a message costs no array.
enum TransportInput: Sendable, Hashable {
    /// A connection from `remote` was accepted by the listener.
    case connectionArrived(from: IPv4Endpoint, at: Duration)
    /// The handshake on `link` proved the peer's key: `number`, `instance`
    /// from its hello, `listen` the address it accepts links on.
    case peerVerified(link: Int, number: NodeNumber, instance: String, listen: IPv4Endpoint)
    /// The acceptor's first record arrived on our dial `link`.
    case acceptanceArrived(link: Int)
    /// The timer woke at `now`; `load` is what the shell knows of its links.
    /// (The control plane's steps of a tick are methods: the shell's own
    /// I/O sits between them, `P2PService.tick`.)
    case timerFired(at: Duration, load: LinkLoad)
    /// A beacon (or leave datagram) arrived from `source`. `linked`: the
    /// names of the peer whose established link has the beacon's number,
    /// as the link last stated them (the link, not the datagram, is the
    /// evidence); nil if the number has no link.
    case beaconHeard(DiscoveryBeacon, from: IPv4Endpoint, linked: PeerNames?, at: Duration, overlay: OverlayView)
    /// The overlay or a DM asks for announced peer `number` now: the dial
    /// rule looks at it (`dialAnnouncedPeers(only:)`).
    case dialWanted(NodeNumber, at: Duration, overlay: OverlayView)
    /// A dial failed before its link was established (no connection, or
    /// none allowed, or the handshake did not finish): back off.
    case dialFailed(expecting: NodeNumber?, staticIndex: Int?, at: Duration)
    /// A peer's established link closed (`closed`, from `close`), for `reason`.
    case linkLost(TransportCore.ClosedLink, PeerLeaveReason, at: Duration)
    /// Static peer `index`'s name resolved to `endpoint` (nil: it did not).
    case staticResolved(Int, IPv4Endpoint?, at: Duration)
    /// The overlay took a step: what it asks for may have changed, so the
    /// last plan's announcement deadlines no longer hold.
    case overlayChanged
}

/// A linked peer's names as its link last stated them.
struct PeerNames: Sendable, Hashable {
    var nickname: String
    var stage: String?
}

/// The shell's facts about its links that the core's deadlines depend on
/// but do not own: sealed or unsealed output lives with the socket, and
/// which links carry the overlay is the overlay's to say.
struct LinkLoad: Sendable, Hashable {
    /// Links with output queued (their write deadline runs).
    var queued: Set<Int> = []
    /// Overlay links above the threshold: their keepalive and dead-peer
    /// timeouts are stretched (`LinkLifecycle.Timeouts.stretched`).
    var stretched: Set<Int> = []
    /// Stretched links this end dialled to a peer that speaks `quietLinks`:
    /// they may ping quietly (`LinkLifecycle.Timeouts.pingsQuietly`).
    var quiet: Set<Int> = []
    /// Added to every handshake's timeout: the process itself runs late
    /// (`SchedulingLag`), so a slow handshake is not the peer's fault.
    var handshakeAllowance: Duration = .zero

    init(queued: Set<Int> = [], stretched: Set<Int> = [], handshakeAllowance: Duration = .zero) {
        self.queued = queued
        self.stretched = stretched
        self.handshakeAllowance = handshakeAllowance
    }
}
