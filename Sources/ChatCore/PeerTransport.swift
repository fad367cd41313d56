/// A peer as the transport knows it: identity from its verified handshake
/// and hello.
public struct PeerInfo: Hashable, Sendable, Codable {
    public var number: NodeNumber
    public var nickname: String
    public var stage: String?
    /// Changes on every start of the peer's process.
    public var instanceId: String
    /// Where its link goes, "host:port", for display.
    public var address: String
    /// The peer's Ed25519 identity key (base64, as `authorKey`) as its handshake proved it;
    /// `number` derives from it. Nil from transports without keys.
    public var identityKey: String?
    /// The key's fingerprint, as people compare it (`3f2a 9c01 ...`).
    public var fingerprint: String?

    public init(number: NodeNumber, nickname: String, stage: String? = nil, instanceId: String, address: String,
                identityKey: String? = nil, fingerprint: String? = nil) {
        self.number = number
        self.nickname = nickname
        self.stage = stage
        self.instanceId = instanceId
        self.address = address
        self.identityKey = identityKey
        self.fingerprint = fingerprint
    }
}

/// Why a peer is gone.
public enum PeerLeaveReason: String, Hashable, Sendable, Codable {
    /// It said goodbye (leave frame or datagram).
    case left
    /// Its link dropped or it stopped answering within the dead-peer timeout.
    case timedOut
    /// It broke the protocol and was cut off.
    case disconnected
    /// It restarted (new instance id); a join follows.
    case restarted
}

/// What a transport reports to the node.
public enum TransportEvent: Hashable, Sendable {
    /// A link to this peer is up (hello exchanged).
    case peerJoined(PeerInfo)
    /// The peer changed its nickname or stage.
    case peerUpdated(PeerInfo)
    case peerLeft(NodeNumber, PeerLeaveReason)
    /// A frame from a peer's link; the transport has already checked that
    /// its `senderNumber` is the link's identity.
    case received(P2PPayload, from: NodeNumber)
    /// Frames from one peer's link that arrived together (one read), in
    /// order: the same as one `.received` each, in one hand-off. One event
    /// per frame cost a busy receiver 20% of its CPU in hand-offs.
    case receivedFrames([P2PPayload], from: NodeNumber)
}

/// The network as the node sees it. `P2PService` is the real one; tests use
/// an in-memory network with fault injection.
public protocol PeerTransport: Sendable {
    /// Events, in order; finishes after `stop()`.
    var events: EventChannel<TransportEvent> { get }
    func start() async throws
    /// Says leave to everyone, closes links, finishes `events`.
    func stop() async
    /// Writes `payload` only on the link to `peer`. False if there is no link.
    @discardableResult
    func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool
    /// Encodes once and writes to every link; returns how many links got it.
    @discardableResult
    func broadcast(_ payload: P2PPayload) async -> Int
    /// Writes `frames` in order, as `send` and `broadcast` would one by
    /// one, in one call: a node step hands over all its frames at once,
    /// and the transport writes each link's socket once for the lot.
    func send(batch frames: [OutgoingFrame]) async
    /// Announces a new nickname or stage in beacons and to linked peers.
    func updateIdentity(_ identity: NodeIdentity) async
    /// Peers with a link up now.
    func connectedPeers() async -> [PeerInfo]
    /// Peers heard of (beacons) but not linked now: names unproven, no key.
    func heardPeers() async -> [PeerInfo]
    /// The transport's own counters (rejections, limits hit), by name, for
    /// `/stats` and `--json`.
    func diagnostics() async -> [String: Int]
    /// Backpressure: the node cannot keep up, so stop (true) or resume
    /// (false) reading linked peers' frames; TCP flow control makes them
    /// wait instead of the node queueing without limit.
    func pauseReading(_ paused: Bool) async
    /// The node has direct frames (DMs, acks, file offers) for `peers`,
    /// none of them linked: the transport may open links to them on
    /// demand (a join follows) and returns those it can carry direct
    /// frames to now without a link (sealed through other nodes), for
    /// `send(_:to:)`.
    func reach(_ peers: Set<NodeNumber>) async -> Set<NodeNumber>
    /// Public messages the node stored from a catch-up (signed frames as
    /// their authors sent them, signatures checked): a transport that
    /// relays (the overlay) tells its neighbours of them, so a gap one
    /// node closed by catching up is closed for the nodes beside it too.
    func spread(_ caughtUp: [P2PPayload]) async
}

/// One frame of a batch (`PeerTransport.send(batch:)`).
public enum OutgoingFrame: Hashable, Sendable {
    /// Only on the link to this peer (`send(_:to:)`).
    case to(NodeNumber, P2PPayload)
    /// On every link (`broadcast`).
    case everyone(P2PPayload)
}

extension PeerTransport {
    /// One call per frame, for transports with nothing to gain from a batch.
    public func send(batch frames: [OutgoingFrame]) async {
        for frame in frames {
            switch frame {
            case .to(let peer, let payload): await send(payload, to: peer)
            case .everyone(let payload): await broadcast(payload)
            }
        }
    }

    public func diagnostics() async -> [String: Int] { [:] }
    public func heardPeers() async -> [PeerInfo] { [] }
    public func pauseReading(_ paused: Bool) async {}
    /// Without links on demand or relays: only linked peers are reached.
    public func reach(_ peers: Set<NodeNumber>) async -> Set<NodeNumber> { [] }
    /// Every peer is linked to every author: nothing to spread.
    public func spread(_ caughtUp: [P2PPayload]) async {}
}
