import ChatCore
import Synchronization

/// A network in one process: every transport joined to it is linked to every
/// other, frames are delivered in order per pair. Nodes under test use it in
/// place of `P2PService`, so node logic is tested without sockets.
public actor InMemoryNetwork {
    /// Faults applied to every frame delivered (not to joins and leaves).
    public struct Faults: Sendable {
        /// Probability a frame is lost.
        public var drop: Double = 0
        /// Probability a frame arrives twice.
        public var duplicate: Double = 0
        /// Probability a frame is held back and delivered after the next
        /// frame to the same node.
        public var reorder: Double = 0

        public init(drop: Double = 0, duplicate: Double = 0, reorder: Double = 0) {
            self.drop = drop
            self.duplicate = duplicate
            self.reorder = reorder
        }
    }

    private var members: [NodeNumber: InMemoryTransport] = [:]
    private var faults = Faults()
    private var random = SeededRandom(seed: 1)
    /// Frames held back for reordering, per target.
    private var held: [NodeNumber: [(P2PPayload, NodeNumber)]] = [:]
    public private(set) var droppedCount = 0
    /// Pairs whose link is cut (both directions), stored low-high.
    private var cutPairs: Set<[NodeNumber]> = []
    public private(set) var deliveredCount = 0
    /// Peers that only `inject` frames.
    private var injected: Set<NodeNumber> = []
    /// History entries each node has sent in catch-up replies (what a
    /// catch-up costs its answerers).
    public private(set) var relayedEntries: [NodeNumber: Int] = [:]

    public init() {}

    /// A transport for `identity` on this network (joins on `start()`);
    /// with `identityKey` (base64, as `authorKey`), its peers learn that key
    /// as the link's verified one, as a real handshake would prove it.
    public nonisolated func transport(for identity: NodeIdentity, identityKey: String? = nil) -> InMemoryTransport {
        InMemoryTransport(identity: identity, identityKey: identityKey, network: self)
    }

    func join(_ member: InMemoryTransport) {
        let info = member.info
        for other in members.values where linked(info.number, other.info.number) {
            other.emit(.peerJoined(info))
            member.emit(.peerJoined(other.info))
        }
        members[info.number] = member
    }

    func leave(_ number: NodeNumber, reason: PeerLeaveReason) {
        guard let member = members.removeValue(forKey: number) else { return }
        for other in members.values where linked(number, other.info.number) {
            other.emit(.peerLeft(number, reason))
        }
        member.finish()
    }

    /// Applies `faults` from now on, with a seeded generator for replay.
    public func setFaults(_ faults: Faults, seed: UInt64 = 1) {
        self.faults = faults
        random = SeededRandom(seed: seed)
    }

    /// Delivers frames held back for reordering (call before asserting).
    public func flushHeld() {
        for (target, frames) in held {
            guard let member = members[target] else { continue }
            for (payload, sender) in frames where members[sender] != nil && linked(sender, target) {
                member.emit(.received(payload, from: sender))
            }
        }
        held.removeAll()
    }

    func deliver(_ payload: P2PPayload, from sender: NodeNumber, to target: NodeNumber) -> Bool {
        guard let member = members[target], members[sender] != nil, linked(sender, target) else { return false }
        deliveredCount += 1
        if payload.type == .historyReply { relayedEntries[sender, default: 0] += payload.messages?.count ?? 0 }
        if random.chance(faults.drop) {
            droppedCount += 1
            return true  // written, then lost: the sender cannot tell
        }
        if random.chance(faults.reorder) {
            held[target, default: []].append((payload, sender))
            return true
        }
        member.emit(.received(payload, from: sender))
        if random.chance(faults.duplicate) { member.emit(.received(payload, from: sender)) }
        for (late, lateSender) in held.removeValue(forKey: target) ?? [] where members[lateSender] != nil {
            member.emit(.received(late, from: lateSender))
        }
        return true
    }

    func peers(of number: NodeNumber) -> [PeerInfo] {
        members.values.filter { $0.info.number != number && linked(number, $0.info.number) }.map(\.info)
    }

    func update(_ info: PeerInfo) {
        members[info.number]?.info = info
        for other in members.values where other.info.number != info.number && linked(info.number, other.info.number) {
            other.emit(.peerUpdated(info))
        }
    }

    /// Cuts the link between two nodes: each sees the other leave.
    public func cut(_ a: NodeNumber, _ b: NodeNumber) {
        guard cutPairs.insert([min(a, b), max(a, b)]).inserted else { return }
        if let ma = members[a], let mb = members[b] {
            ma.emit(.peerLeft(b, .timedOut))
            mb.emit(.peerLeft(a, .timedOut))
        }
    }

    /// Restores a cut link: each sees the other join.
    public func heal(_ a: NodeNumber, _ b: NodeNumber) {
        guard cutPairs.remove([min(a, b), max(a, b)]) != nil else { return }
        if let ma = members[a], let mb = members[b] {
            ma.emit(.peerJoined(mb.info))
            mb.emit(.peerJoined(ma.info))
        }
    }

    /// Frames from peers that are not nodes (a test's crowd of attackers,
    /// each with an identity of its own): each links to `target` alone,
    /// once, and its frames arrive in order. Nothing is sent back to them.
    public func inject(_ frames: [(payload: P2PPayload, from: PeerInfo)], into target: NodeNumber) {
        guard let member = members[target] else { return }
        for (payload, peer) in frames {
            if injected.insert(peer.number).inserted { member.emit(.peerJoined(peer)) }
            deliveredCount += 1
            member.emit(.received(payload, from: peer.number))
        }
    }

    private func linked(_ a: NodeNumber, _ b: NodeNumber) -> Bool {
        !cutPairs.contains([min(a, b), max(a, b)])
    }
}

/// One node's endpoint on an `InMemoryNetwork`.
public final class InMemoryTransport: PeerTransport {
    public let events = EventChannel<TransportEvent>(capacity: .max)
    private let network: InMemoryNetwork
    private let state: Mutex<PeerInfo>
    /// Set by `crash()`: a dead process writes nothing more.
    private let dead = Mutex(false)
    /// Peers "heard by beacon" and not linked (`hear`).
    private let heard = Mutex<[PeerInfo]>([])

    /// Reports `peer` as heard on the LAN but not linked (as the overlay's
    /// `heardPeers` does above its threshold).
    public func hear(_ peer: PeerInfo) { heard.withLock { $0.append(peer) } }

    public func heardPeers() async -> [PeerInfo] { heard.withLock { $0 } }

    private let spreadFrames = Mutex<[P2PPayload]>([])
    /// What the node asked to spread after its catch-ups (`PeerTransport.spread`).
    public var spread: [P2PPayload] { spreadFrames.withLock { $0 } }
    public func spread(_ caughtUp: [P2PPayload]) async { spreadFrames.withLock { $0 += caughtUp } }

    init(identity: NodeIdentity, identityKey: String?, network: InMemoryNetwork) {
        self.network = network
        state = Mutex(PeerInfo(
            number: identity.number, nickname: identity.nickname, stage: identity.stage,
            instanceId: String(UInt64.random(in: 0...UInt64.max), radix: 16), address: "memory", identityKey: identityKey))
    }

    var info: PeerInfo {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    func emit(_ event: TransportEvent) { events.yield(event) }
    func finish() { events.finish() }

    public func start() async throws { await network.join(self) }

    public func stop() async { await network.leave(info.number, reason: .left) }

    /// Vanishes without a leave, as a killed process would; nothing it
    /// sends afterwards arrives anywhere.
    public func crash() async {
        dead.withLock { $0 = true }
        await network.leave(info.number, reason: .timedOut)
    }

    public func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool {
        guard !dead.withLock({ $0 }) else { return false }
        return await network.deliver(payload, from: info.number, to: peer)
    }

    public func broadcast(_ payload: P2PPayload) async -> Int {
        guard !dead.withLock({ $0 }) else { return 0 }
        var count = 0
        for peer in await network.peers(of: info.number) where await network.deliver(payload, from: info.number, to: peer.number) {
            count += 1
        }
        return count
    }

    public func updateIdentity(_ identity: NodeIdentity) async {
        var updated = info
        updated.nickname = identity.nickname
        updated.stage = identity.stage
        await network.update(updated)
    }

    public func connectedPeers() async -> [PeerInfo] { await network.peers(of: info.number) }
}
