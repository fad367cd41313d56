// Placeholder until the P2PTransport module lands: the agreed API, inert.
import ChatCore

public struct P2PConfiguration: Sendable {
    public var discoveryPort: Int = 47_474
    public var listenPort: Int = 0
    public var broadcastAddresses: [String]? = nil
    public var staticPeers: [String] = []
    public var beaconInterval: Duration = .seconds(2)
    public var handshakeTimeout: Duration = .seconds(3)
    public var keepaliveInterval: Duration = .seconds(2)
    public var deadPeerTimeout: Duration = .seconds(6)
    public var writeTimeout: Duration = .seconds(5)
    public var maxQueuedBytesPerLink: Int = 1 << 20
    public init() {}
}

public actor P2PService: PeerTransport {
    public nonisolated let events: AsyncStream<TransportEvent>
    private let continuation: AsyncStream<TransportEvent>.Continuation
    public init(identity: NodeIdentity, configuration: P2PConfiguration, clock: any ChatClock = SystemClock(), logger: ChatLogger = .disabled) {
        (events, continuation) = AsyncStream.makeStream(of: TransportEvent.self)
    }
    public func start() async throws {}
    public func stop() async { continuation.finish() }
    public var listeningPort: Int { 0 }
    public var instanceId: String { "" }
    public func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool { false }
    public func broadcast(_ payload: P2PPayload) async -> Int { 0 }
    public func updateIdentity(_ identity: NodeIdentity) async {}
    public func connectedPeers() async -> [PeerInfo] { [] }
}
