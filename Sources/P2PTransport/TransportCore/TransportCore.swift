import ChatCore

/// The transport's decisions, as one pure value. About links: the link
/// table (per link: direction, address, peer number, `LinkLifecycle`),
/// the one established link per peer, admission of new connections, the
/// tie-breaks that keep one link per pair (`LinkArbiter`), the deadlines
/// of every link. About finding peers (its control plane): the
/// announcements and their dial backoff (`AnnouncementTable`), the dial
/// rule and its budgets, static peers, beacon turns and answers to
/// newcomers (`BeaconSchedule`, `NewcomerAnswers`), claims of a linked
/// number by another instance. And when the timer must wake for all of it.
///
/// It reads no clock and touches no socket: `P2PService`, its shell, feeds
/// it inputs with the time (`handle(_:)`, `note...`) and carries out the
/// `TransportAction`s it returns. Tests drive it on a manual clock
/// (`TransportCore*Tests`).
///
/// The shell's `PeerLink` (descriptor, ciphers, queues) carries the same id
/// as the core's `LinkEntry`; the two tables gain and lose a link together
/// (`open`, `close`).
struct TransportCore: Sendable {
    /// One link as the core sees it.
    struct LinkEntry: Sendable, Hashable {
        /// The poll token; unique for the service's lifetime.
        let id: Int
        let direction: LinkDirection
        /// Dialled address, or the peer's address and ephemeral port if inbound.
        let remote: IPv4Endpoint
        var lifecycle: LinkLifecycle
        /// The number a dial expects, then the one the handshake proved.
        var number: NodeNumber?
        /// The peer's instance, once verified.
        var instance: String?
        /// The address the peer accepts links on, once verified.
        var listen: IPv4Endpoint?
        /// The static peer this dial is for (`statics`).
        var staticIndex: Int?

        var phase: LinkLifecycle.Phase { lifecycle.phase }
        /// Inbound and without a finished handshake: counts against the pending limits.
        var isPending: Bool { direction == .inbound && lifecycle.isUnfinished }
    }

    /// This node's number (the tie-breaks compare it).
    let me: NodeNumber
    /// Fitted to the descriptor limit at start (`DescriptorBudget`).
    var limits: PeerLimits
    /// The unstretched link timeouts (`P2PConfiguration`).
    let timeouts: LinkLifecycle.Timeouts
    /// How long a probe of a link waits for its pong.
    let restartProbeTimeout: Duration
    /// How many times later an overlay link above the threshold pings and
    /// counts its peer dead (`LinkLoad.stretched`).
    let overlayStretch: Double

    // The tables below are written by the core's own methods only (in its
    // extensions' files too, hence not `private(set)`); the shell reads them.
    var links: [Int: LinkEntry] = [:]
    /// The one established link per peer, by id.
    var established: [NodeNumber: Int] = [:]
    /// Inbound connection attempts per source address.
    var connectionGate: ConnectionGate
    /// Dials of announcements never proven by a handshake (`PeerLimits.unprovenDialBurst`).
    var unprovenDials: TokenBucket
    private var nextID: Int

    // The control plane (`TransportCore+Beacons`, `+Hearing`, `+DialRule`,
    // `+StaticPeers`, `+Wake`).
    let discovery: DiscoverySettings
    /// The peers announced by beacons: whom to dial, and when.
    var announcements: AnnouncementTable
    /// Beacons from a new instance of a linked peer's number, waiting for
    /// the probe of the link: applied if the link turns out dead,
    /// forgotten if it answers (`claimRefused`).
    var claims: [NodeNumber: Claim] = [:]
    /// The configured `--peer` addresses and their dial schedules.
    var statics: [StaticPeer] = []
    var beacons: BeaconState
    /// When broadcast answers to newcomers go out, or become dials.
    var answers: NewcomerAnswers
    /// What the last full wake plan found in the announcements.
    var planned = PlannedPasses()
    var counts = ControlCounts()
    /// Jitter and the schedule's draws; seeded, so a test replays.
    var random: SeededRandom

    /// A beacon from another instance of a linked number, and where it came from.
    struct Claim: Sendable, Hashable {
        let beacon: DiscoveryBeacon
        let source: IPv4Endpoint
    }

    init(me: NodeNumber, limits: PeerLimits, timeouts: LinkLifecycle.Timeouts, restartProbeTimeout: Duration,
         overlayStretch: Double = 2.0, firstID: Int = 1, discovery: DiscoverySettings = DiscoverySettings(),
         seed: UInt64 = 1) {
        self.me = me
        self.limits = limits
        self.timeouts = timeouts
        self.restartProbeTimeout = restartProbeTimeout
        self.overlayStretch = overlayStretch
        nextID = firstID
        connectionGate = ConnectionGate(burst: limits.connectionBurstPerAddress, perSecond: limits.connectionsPerSecondPerAddress)
        unprovenDials = TokenBucket(capacity: Double(limits.unprovenDialBurst), perSecond: limits.unprovenDialsPerSecond)
        self.discovery = discovery
        announcements = AnnouncementTable(backoffBase: discovery.reconnectDelay, backoffCap: discovery.maxReconnectDelay,
                                          maxEntries: limits.maxAnnouncements, maxPerAddress: limits.maxAnnouncementsPerAddress,
                                          maxPerLoopbackAddress: limits.maxAnnouncementsPerLoopbackAddress)
        beacons = BeaconState(policy: discovery.beaconPolicy)
        answers = NewcomerAnswers(policy: discovery.answerPolicy)
        random = SeededRandom(seed: seed)
    }

    subscript(id: Int) -> LinkEntry? { links[id] }

    func phase(of id: Int) -> LinkLifecycle.Phase? { links[id]?.lifecycle.phase }

    /// The established link of `number`, if any.
    func establishedLink(of number: NodeNumber) -> Int? { established[number] }

    var linkCount: Int { links.count }

    /// Whether another link may open (`PeerLimits.maxLinks`).
    var canOpenLink: Bool { links.count < limits.maxLinks }

    // MARK: Opening and closing

    /// A dial's connection was made (or is under way): its entry, `connecting`
    /// until `connected`. Returns its id.
    mutating func openDial(to remote: IPv4Endpoint, expecting: NodeNumber?, staticIndex: Int? = nil, at now: Duration) -> Int {
        let id = takeID()
        var entry = LinkEntry(id: id, direction: .outbound, remote: remote,
                              lifecycle: LinkLifecycle(phase: .connecting, openedAt: now, direction: .outbound))
        entry.number = expecting
        entry.staticIndex = staticIndex
        links[id] = entry
        return id
    }

    /// An accepted connection's entry, handshaking. Returns its id.
    /// (Admission decides whether to take it: `admit(from:at:)`.)
    mutating func openInbound(from remote: IPv4Endpoint, at now: Duration) -> Int {
        let id = takeID()
        links[id] = LinkEntry(id: id, direction: .inbound, remote: remote,
                              lifecycle: LinkLifecycle(phase: .handshaking, openedAt: now, direction: .inbound))
        return id
    }

    /// What a closed link was, for the shell's report.
    struct ClosedLink: Sendable, Hashable {
        let entry: LinkEntry
        /// It was its peer's established link (now no longer).
        let wasEstablished: Bool
    }

    /// Forgets link `id`; nil if already gone. Every close ends here,
    /// whoever decided it (a `.close` action is not applied until the shell
    /// reports it so, as for a link the peer closed). A retiring link is
    /// never its peer's established one.
    @discardableResult
    mutating func close(_ id: Int) -> ClosedLink? {
        guard let entry = links.removeValue(forKey: id) else { return nil }
        var current = false
        if let number = entry.number, established[number] == id {
            established[number] = nil
            current = true
        }
        return ClosedLink(entry: entry, wasEstablished: current)
    }

    /// Forgets every link (the service stops).
    mutating func closeAll() {
        links.removeAll()
        established.removeAll()
    }

    private mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: Times the shell reports

    /// The dial's connect finished; its handshake starts.
    mutating func noteConnected(_ id: Int) { links[id]?.lifecycle.connected() }

    /// A complete handshake message arrived.
    mutating func noteHandshakeProgress(_ id: Int, at now: Duration) { links[id]?.lifecycle.handshakeProgressed(at: now) }

    /// A frame arrived (decoded and paid for). Returns the link's phase
    /// (nil: gone), which the data path reads next: one lookup a frame.
    @discardableResult
    mutating func noteReceived(_ id: Int, at now: Duration) -> LinkLifecycle.Phase? {
        guard let index = links.index(forKey: id) else { return nil }
        links.values[index].lifecycle.received(at: now)
        return links.values[index].lifecycle.phase
    }

    /// This side is not reading the link (throttled, or the node holds
    /// reading back): its silence is not the peer's.
    mutating func noteNotReading(_ id: Int, at now: Duration) { links[id]?.lifecycle.notReading(at: now) }

    /// Something was queued for the peer; `wasIdle`: the queue was empty, so
    /// the write deadline starts now.
    mutating func noteSent(_ id: Int, at now: Duration, wasIdle: Bool) {
        links[id]?.lifecycle.sent(at: now)
        if wasIdle { links[id]?.lifecycle.wroteProgress(at: now) }
    }

    /// The socket took some of the link's output.
    mutating func noteWroteProgress(_ id: Int, at now: Duration) { links[id]?.lifecycle.wroteProgress(at: now) }

    /// A probe's ping is on its way on link `id`; false if one already runs.
    mutating func startProbe(_ id: Int, ping: MessageID, at now: Duration) -> Bool {
        links[id]?.lifecycle.startProbe(ping: ping, deadline: now + restartProbeTimeout) ?? false
    }

    /// A pong arrived on link `id`: true if it answers the probe (the link
    /// is alive and the rival instance's claim is refused).
    mutating func notePong(_ id: Int, refId: MessageID?) -> Bool { links[id]?.lifecycle.pong(refId: refId) ?? false }

    // MARK: Decisions

    /// Decides what `input` calls for; the core's tables already reflect it.
    mutating func handle(_ input: TransportInput) -> [TransportAction] {
        switch input {
        case .connectionArrived(let remote, let now): admit(from: remote, at: now)
        case .peerVerified(let id, let number, let instance, let listen): verified(id, number: number, instance: instance, listen: listen)
        case .acceptanceArrived(let id): acceptanceArrived(id)
        case .timerFired(let now, let load): timerFired(at: now, load: load)
        case .beaconHeard(let beacon, let source, let linked, let now, let overlay):
            beaconHeard(beacon, from: source, linked: linked, at: now, overlay: overlay)
        case .dialWanted(let number, let now, let overlay): dialPass(only: number, at: now, overlay: overlay)
        case .dialFailed(let number, let staticIndex, let now): scheduleRedial(number: number, staticIndex: staticIndex, at: now)
        case .linkLost(let closed, let reason, let now): linkLost(closed, reason, at: now)
        case .staticResolved(let index, let endpoint, let now): staticResolved(index, to: endpoint, at: now)
        case .overlayChanged: forgetPlannedPasses()
        }
    }
}
