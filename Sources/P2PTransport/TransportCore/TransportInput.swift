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
    /// Announced peers whose dial is due by the dial rule.
    case dialsDue([TransportCore.DialCandidate], at: Duration)
    /// The timer woke at `now`; `load` is what the shell knows of its links.
    case timerFired(at: Duration, load: LinkLoad)
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
    /// Added to every handshake's timeout: the process itself runs late
    /// (`SchedulingLag`), so a slow handshake is not the peer's fault.
    var handshakeAllowance: Duration = .zero

    init(queued: Set<Int> = [], stretched: Set<Int> = [], handshakeAllowance: Duration = .zero) {
        self.queued = queued
        self.stretched = stretched
        self.handshakeAllowance = handshakeAllowance
    }
}
