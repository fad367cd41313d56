import ChatCore
import ChatWire
import ChatCrypto
import Foundation

/// The real `PeerTransport`: finds peers by UDP broadcast beacons, keeps one
/// TCP link to each, and moves `P2PPayload` frames over them (see
/// PROTOCOL.md for the wire format and rules).
///
/// All state lives in this actor. The decisions (about links: admission,
/// tie-breaks, lifecycles and their deadlines; about finding peers:
/// announcements, the dial rule and its budgets, static peers, beacons,
/// answers, when the timer wakes) are its `core`, a pure `TransportCore`
/// it feeds and obeys (`P2PService+Core`); the actor does the socket work. One poll thread reports socket readiness
/// (`PollLoop`); the actor does the reads and writes itself, so nothing
/// about a link is shared. A ticker task drives every timer (beacons,
/// dials, handshake and dead-peer deadlines, keepalives, write deadlines)
/// against the injected `ChatClock`.
///
/// A service runs once: `start()`, then `stop()`. To restart a node, make a
/// new service (it gets a new instance id, which peers notice).
public actor P2PService: PeerTransport {
    enum Lifecycle { case idle, running, stopped }

    /// Poll tokens of the two fixed sockets; links count up from `firstLinkToken`.
    /// Discovery is lowest so a leave datagram is handled before the end of
    /// stream it explains (see `PollLoop`).
    static let discoveryToken = 1
    static let listenerToken = 2
    static let firstLinkToken = 3
    /// Beacons sent at start, this far apart, before the jittered schedule.
    static let startBurst = BeaconState.startBurst
    static let burstGap = BeaconState.burstGap
    /// Frames sealed into one write when the socket asks for more.
    static let sealBatchBytes = 64 * 1024

    /// Events for the node, in order; finishes after `stop()`. Meant for one
    /// consumer. Buffered without bound (a join or leave must never be
    /// dropped), so the node must keep reading it.
    /// Unbounded: the node holds reading back (`pauseReading`) when it lags.
    public nonisolated let events = EventChannel<TransportEvent>(capacity: .max)
    /// As given, except `limits` fitted to the descriptor limit at start.
    var configuration: P2PConfiguration
    let clock: any ChatClock
    let logger: ChatLogger
    nonisolated let instance: String
    /// Its number is `identity.number`: a number is derived, never chosen.
    let identityKey: IdentityKey
    /// This run's Noise static key with `identityKey`'s signature over it,
    /// made once for all its handshakes; nil if libcrypto failed, then one
    /// per handshake.
    let handshakeCredential: HandshakeIdentity.Credential?
    var identity: NodeIdentity

    var lifecycle = Lifecycle.idle
    var loop: PollLoop?
    /// For deinit, which may not touch `loop`.
    var loopStopper: PollLoop.Stopper?
    var listener: Int32 = -1
    var discovery: Int32 = -1
    var port = 0
    var broadcastTargets: [IPv4Endpoint] = []
    var links: [Int: PeerLink] = [:] {
        // Kept apart as plain numbers so that deinit, which may not touch
        // the non-Sendable links, can still close them.
        didSet { linkDescriptors = Set(links.values.map(\.fd)) }
    }
    var linkDescriptors: Set<Int32> = []
    /// The node asked us to stop reading linked peers (see `pauseReading`).
    var readingPaused = false
    /// The transport's decisions: the link table, admission, tie-breaks,
    /// link deadlines; announcements, dials, static peers, beacons,
    /// answers and the wake plan (`TransportCore`).
    var core: TransportCore
    /// The one established link per peer (the core says which).
    var established: EstablishedLinks { EstablishedLinks(ids: core.established, links: links) }
    var stats = TransportCounters()
    var messageIDs = MessageIDGenerator()
    var background: [Task<Void, Never>] = []
    /// The one timer: when it wakes next (`P2PService+WakeUps.swift`).
    var timer = ServiceTimer()
    /// How late the timer has run lately: a handshake's allowance under load.
    var schedulingLag = SchedulingLag()
    var warnedTargets: Set<IPv4Endpoint> = []
    var warnedCollisions: Set<String> = []
    /// Addresses whose beacons lacked our group's tag, warned about once
    /// each for a wrong tag and for none (bit 32 set), or that are off the
    /// LAN (bit 33).
    var warnedForeignSources: Set<UInt64> = []
    /// Where discovery datagrams are heard from (the LAN only).
    var discoverySources = DiscoverySources()
    /// Addresses whose handshakes showed another group secret, warned about once.
    var warnedGroupMismatch = WarnedAddresses()
    /// Addresses that spoke protocol v1, logged once each.
    var warnedVersion1 = WarnedAddresses()
    /// Testing: the service ignores its sockets and timers, like a hung process.
    var frozen = false
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// Frames decoded from the current read, not yet handed to the node,
    /// and the peer whose link they came on (`flushDelivered`).
    var delivered: [P2PPayload] = []
    var deliveredFrom: NodeNumber?
    var datagramBuffer = [UInt8](repeating: 0, count: 2 * DiscoveryBeacon.maxDatagramSize)
    /// Datagrams already read as beacons (most are repeats).
    var beaconCache = BeaconCache()
    /// Seals and opens a private group's beacons (`SealedBeacon`); nil
    /// without a group secret.
    let beaconSealKey: BeaconSealKey?
    /// The source address datagrams to each target leave from, which a
    /// sealed beacon binds (found once per target).
    var sourceAddresses: [IPv4Endpoint: UInt32] = [:]
    /// The overlay and its shell's tables (`P2PService+Overlay.swift`);
    /// nil without `configuration.overlay`.
    var overlayLinks: OverlayLinks?
    /// Checks gossiped public messages against their author's signature.
    let messageVerifier: Ed25519MessageAuthenticator

    /// The node number is the one `configuration.identityKey` derives (a
    /// fresh key if nil); `identity` gives the nickname and stage, and a
    /// different number in it is replaced, with an error logged.
    /// `verifiedSignatures`: where gossip verified here is remembered; the
    /// app hands its node's authenticator the same table, so the node's
    /// check of a frame verified here is a look-up (a table of its own if
    /// not given).
    public init(identity: NodeIdentity, configuration: P2PConfiguration,
                clock: any ChatClock = SystemClock(), logger: ChatLogger = .disabled,
                verifiedSignatures: VerifiedSignatures = VerifiedSignatures()) {
        let key: IdentityKey
        if let given = configuration.identityKey {
            key = given
        } else {
            // Only a failing system random source stops this; nothing
            // about the node could work then.
            do { key = try IdentityKey.generate() } catch { preconditionFailure("no Ed25519 key from libcrypto: \(error)") }
        }
        identityKey = key
        messageVerifier = Ed25519MessageAuthenticator(key: key, verified: verifiedSignatures)
        do {
            handshakeCredential = try HandshakeIdentity.Credential(identity: key)
        } catch {
            // Handshakes still work, each with a static key of its own.
            logger.error("no static key for this run (\(error)); each handshake makes one")
            handshakeCredential = nil
        }
        var identity = identity
        if identity.number != key.nodeNumber {
            logger.error("node number \(identity.number) is not the one the identity key derives; using \(key.nodeNumber)")
            identity.number = key.nodeNumber
        }
        self.identity = identity
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        instance = InstanceID.make()
        do {
            beaconSealKey = try configuration.groupSecret.map { secret throws(CryptoError) in try BeaconSealKey(secret) }
        } catch {
            // Only a libcrypto without HKDF: the node links by --peer only.
            logger.error("cannot derive the group's beacon key (\(error)); no beacons will be sent or read")
            beaconSealKey = nil
        }
        overlayLinks = configuration.overlay.map { OverlayLinks(me: key.nodeNumber, config: $0, now: clock.uptime()) }
        core = TransportCore(me: key.nodeNumber, limits: configuration.limits,
                             timeouts: LinkLifecycle.Timeouts(handshake: configuration.handshakeTimeout,
                                                              deadPeer: configuration.deadPeerTimeout,
                                                              write: configuration.writeTimeout,
                                                              keepalive: configuration.keepaliveInterval),
                             restartProbeTimeout: configuration.restartProbeTimeout,
                             overlayStretch: Self.overlayLinkStretch, firstID: Self.firstLinkToken,
                             discovery: DiscoverySettings(configuration: configuration, instance: instance),
                             seed: UInt64.random(in: 0...UInt64.max))
    }

    deinit {
        // Only reached without stop() (the background tasks hold `self`
        // weakly): release the thread and the sockets rather than leak them.
        guard lifecycle == .running else { return }
        loopStopper?.stop()
        for fd in linkDescriptors { Socket.close(fd) }
        if listener >= 0 { Socket.close(listener) }
        if discovery >= 0 { Socket.close(discovery) }
        events.finish()
    }

    /// The TCP port links are accepted on; 0 before `start()`.
    public var listeningPort: Int { port }

    /// This run's instance id, announced in beacons and the hello.
    public var instanceId: String { instance }

    /// The node number its identity key derives (the one it links as).
    public var number: NodeNumber { identity.number }

    public func counters() -> TransportCounters {
        var counters = stats
        core.counts.add(to: &counters)
        counters.evictedAnnouncements = core.announcements.evictions
        counters.answersSuppressed = core.answers.suppressed
        counters.overlayPartial = overlayIsPartial ? 1 : 0
        counters.overlayActivePeers = overlayLinks?.overlay.membership.active.count ?? 0
        counters.lanSizeEstimate = core.beacons.knownAtTurn
        counters.gossipOverBudget = overlayLinks?.overlay.broadcast.overBudget ?? 0
        return counters
    }

    /// Peers with an established link, by number.
    public func connectedPeers() async -> [PeerInfo] {
        established.values.compactMap(\.peer).sorted { $0.number < $1.number }
    }

    /// Writes `payload` on the link to `peer` only. False if there is no
    /// link, the service is not running, the payload's sender is not this
    /// node (the peer would cut the link), a direct type names another
    /// target, or the link's queue overflowed (the link is then cut).
    @discardableResult
    public func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool {
        guard canSend(payload) else { return false }
        if payload.type.isDirect, payload.targetNumber != peer {
            logger.error("refused to send \(payload.type) for \(payload.targetNumber.map(String.init(describing:)) ?? "nobody") to \(peer)")
            return false
        }
        // Above the overlay's threshold an unlinked peer may be reached sealed.
        guard let link = established[peer] else { return sendSealed(payload, to: peer) }
        if link.onDemand {
            guard Self.carriesOnDemand(payload.type) else { return false }
            noteDirectTraffic(on: link, peer)
        }
        return write(P2PFrameCodec.encode(payload), to: link)
    }

    /// Encodes `payload` once and queues the same bytes on every
    /// established link; returns how many took it. Direct types are refused
    /// (0): they travel only on their target's link.
    @discardableResult
    public func broadcast(_ payload: P2PPayload) async -> Int {
        guard canSend(payload) else { return 0 }
        guard !payload.type.isDirect else {
            logger.error("refused to broadcast a \(payload.type) frame; direct frames go to their target only")
            return 0
        }
        let frame = P2PFrameCodec.encode(payload)
        let gossip = payload.type == .publicMessage && overlayIsPartial
        var count = 0
        for link in established.values.sorted(by: { $0.id < $1.id }) where !link.onDemand && !(gossip && link.speaksOverlay) && write(frame, to: link) {
            count += 1
        }
        if gossip { publishByGossip(payload) }
        return count
    }

    /// Takes a new nickname or stage (the number is fixed for a run): the
    /// next beacon carries it, and a ping on each link (whose sender fields
    /// peers read) tells linked peers at once.
    public func updateIdentity(_ newIdentity: NodeIdentity) async {
        if newIdentity.number != identity.number {
            logger.error("updateIdentity cannot change the node number (\(identity.number) → \(newIdentity.number)); kept")
        }
        identity.nickname = newIdentity.nickname
        identity.stage = newIdentity.stage
        guard lifecycle == .running, !frozen else { return }
        sendBeacon()
        for link in established.values { writePing(to: link) }
        replanWake()
    }

    func canSend(_ payload: P2PPayload) -> Bool {
        guard lifecycle == .running, !frozen else { return false }
        guard payload.senderNumber == identity.number else {
            logger.error("refused to send a \(payload.type) frame with senderNumber \(payload.senderNumber); this node is \(identity.number)")
            return false
        }
        return true
    }

    var now: Duration { clock.uptime() }

    /// Any other event first hands over the frames gathered before it,
    /// so the node sees everything in the order it happened.
    func emit(_ event: TransportEvent) {
        flushDelivered()
        events.yield(event)
    }

    /// The frames gathered from one link's read go to the node in one event.
    func flushDelivered() {
        guard let peer = deliveredFrom else { return }
        let frames = delivered
        delivered = []
        deliveredFrom = nil
        events.yield(frames.count == 1 ? .received(frames[0], from: peer) : .receivedFrames(frames, from: peer))
    }

    /// A control frame (hello, ping, pong, leave) from this node.
    func control(_ type: PayloadType, refId: MessageID? = nil) -> P2PPayload {
        let millis = clock.nowMillis()
        return P2PPayload(type: type, messageId: messageIDs.next(millis: millis), senderNumber: identity.number,
                          senderNickname: identity.nickname, senderStage: identity.stage,
                          timestamp: millis, refId: refId)
    }
}
