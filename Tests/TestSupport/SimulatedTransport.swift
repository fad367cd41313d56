import ChatCore
import Synchronization

/// One node's endpoint on a `SimulatedNetwork`: sends are scheduled on the
/// network (never delivered in the call), events arrive when the network
/// fires them.
public final class SimulatedTransport: PeerTransport {
    public let events = EventChannel<TransportEvent>(capacity: .max)
    private let network: SimulatedNetwork
    private let state: Mutex<PeerInfo>
    /// Set by `crash()`: a dead process writes nothing more.
    private let dead = Mutex(false)

    init(info: PeerInfo, network: SimulatedNetwork) {
        self.network = network
        state = Mutex(info)
    }

    var info: PeerInfo {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    private var isDead: Bool { dead.withLock { $0 } }

    func emit(_ event: TransportEvent) { events.yield(event) }
    func finish() { events.finish() }

    public func start() async throws { network.join(self) }

    public func stop() async {
        guard !isDead else { return finish() }
        network.leave(info.number, reason: .left)
    }

    /// Vanishes without a leave, as a killed process would: its links drop
    /// (peers see a time-out) and nothing it sends afterwards goes anywhere.
    public func crash() {
        dead.withLock { $0 = true }
        network.leave(info.number, reason: .timedOut)
    }

    public func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool {
        guard !isDead else { return false }
        return network.send(payload, from: info.number, to: peer)
    }

    public func broadcast(_ payload: P2PPayload) async -> Int {
        guard !isDead else { return 0 }
        var count = 0
        for peer in network.peers(of: info.number) where network.send(payload, from: info.number, to: peer.number) {
            count += 1
        }
        return count
    }

    public func updateIdentity(_ identity: NodeIdentity) async {
        var updated = info
        updated.nickname = identity.nickname
        updated.stage = identity.stage
        info = updated
        network.update(updated)
    }

    public func connectedPeers() async -> [PeerInfo] { network.peers(of: info.number) }
}
