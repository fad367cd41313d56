import ChatCore

/// Many overlay nodes on one seeded random generator and one manual clock
/// (TigerBeetle's VOPR, FoundationDB's simulation): links with fixed
/// latencies, seeded loss, crashes, clean leaves, joins and partitions.
/// Each node is a real `Overlay` value; the simulation is its shell, doing
/// what `P2PService` will do (dial, close, send) with no socket. A seed
/// replays exactly: equal seeds give equal reports.
///
/// Node `i` has node number `i + 1`. Public messages are minimal signed
/// frames; the "signature holds" flag is whether `signature` is present.
public struct OverlaySimulation: Sendable {
    /// How a node behaves.
    public enum Role: Sendable, Hashable {
        case honest
        /// Runs membership but never relays: no gossip, no IHAVE (a censor).
        case censor
        /// Accepts every link and says nothing on its own (the tests drive
        /// it with `inject`).
        case puppet
    }

    struct Node: Sendable {
        var overlay: Overlay?
        var alive: Bool
        var role: Role
        var joinedAt: Int64
        var tickAt: Int64 = -1
        var group = 0
    }

    struct Track: Sendable {
        var origin: Int
        var sentAt: Int64
        var received: [Bool]
    }

    public let config: SimulationConfig
    private(set) var nodes: [Node] = []
    private var queue = SimulationEventQueue<Int64, SimulationEvent>()
    private var rng: SeededRandom
    private var links: Set<UInt64> = []
    private var linksOf: [Set<Int>] = []
    var alive: [Int] = []
    private var aliveSlot: [Int: Int] = [:]
    var tracks: [Track] = []
    var trackOf: [MessageID: Int] = [:]
    var hops: [Int] = []
    var delays: [Int64] = []
    var copies = 0
    var framesSent = 0
    var ihaveFrames = 0
    var graftedIDs = 0
    /// Links made and cut since the start (a settled overlay makes few).
    public private(set) var linkChanges = 0
    private var beaconsStarted = false
    /// Simulated time, in nanoseconds.
    public private(set) var nanos: Int64 = 0

    public init(_ config: SimulationConfig) {
        self.config = config
        rng = SeededRandom(seed: config.seed)
    }

    public var now: Duration { .nanoseconds(nanos) }
    public var aliveNodes: [Int] { alive.sorted() }
    public func overlay(of node: Int) -> Overlay? { nodes[node].overlay }
    public static func number(_ node: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(node + 1))! }
    static func index(_ number: NodeNumber) -> Int { Int(number.rawValue) - 1 }

    // MARK: scenario

    /// Starts `count` new nodes, `spacing` apart; returns their indices.
    @discardableResult
    public mutating func join(_ count: Int, spacing: Duration = .milliseconds(1), role: Role = .honest) -> [Int] {
        if !beaconsStarted {
            beaconsStarted = true
            queue.schedule(.beacons, at: nanos + Self.ns(config.beaconInterval))
        }
        var started: [Int] = []
        for offset in 0..<count {
            let index = nodes.count
            let at = nanos + Self.ns(spacing) * Int64(offset)
            let overlay = role == .puppet ? nil
                : Overlay(me: Self.number(index), config: config.overlay, seed: config.seed &* 0x9E37_79B9 &+ UInt64(index), now: .nanoseconds(at))
            nodes.append(Node(overlay: overlay, alive: true, role: role, joinedAt: at))
            linksOf.append([])
            aliveSlot[index] = alive.count
            alive.append(index)
            let others = alive.filter { $0 != index && nodes[$0].joinedAt <= at }
            for peer in rng.sample(others, config.heardAtJoin) {
                queue.schedule(.heard(index, peer: peer), at: at + Int64(rng.below(100_000_000)))
            }
            scheduleTick(index, at: at)
            started.append(index)
        }
        return started
    }

    /// Kills nodes at once: their peers notice after `crashDetection`.
    public mutating func crash(_ victims: [Int]) { remove(victims, detection: config.crashDetection) }

    /// Nodes leave cleanly: their links close (peers notice after one latency).
    public mutating func leave(_ victims: [Int]) { remove(victims, detection: nil) }

    /// Picks `count` random live nodes (not puppets).
    public mutating func randomAlive(_ count: Int) -> [Int] {
        rng.sample(alive.sorted().filter { nodes[$0].role != .puppet }, count)
    }

    public mutating func setRole(_ role: Role, of node: Int) { nodes[node].role = role }

    /// Cuts the LAN into groups (`group(node)`); links across are seen down after `crashDetection`.
    public mutating func partition(_ group: (Int) -> Int) {
        for index in nodes.indices { nodes[index].group = group(index) }
        for key in links.sorted() {
            let a = Int(key >> 32), b = Int(key & 0xFFFF_FFFF)
            guard nodes[a].group != nodes[b].group else { continue }
            cut(a, b, detection: config.crashDetection)
        }
    }

    public mutating func heal() {
        for index in nodes.indices { nodes[index].group = 0 }
    }

    /// `node` publishes a public message (signed unless `forged`); returns its id.
    @discardableResult
    public mutating func publish(from node: Int, forged: Bool = false) -> MessageID {
        let id = MessageID(millis: 1_732_147_200_000 + nanos / 1_000_000, random: (rng.next(), rng.next()))
        var message = P2PPayload(type: .publicMessage, messageId: id, senderNumber: Self.number(node), senderNickname: "n\(node)",
                                 content: "m", timestamp: 1_732_147_200_000)
        message.signature = forged ? nil : "s"
        message.authorKey = "k"
        trackOf[id] = tracks.count
        tracks.append(Track(origin: node, sentAt: nanos, received: []))
        guard var overlay = nodes[node].overlay, nodes[node].alive else { return id }
        nodes[node].overlay = nil
        let actions = overlay.publish(message, now: now)
        nodes[node].overlay = overlay
        perform(actions, at: node)
        return id
    }

    /// Hands `frame` to `node` as if `puppet` sent it, linking them first if needed.
    public mutating func inject(_ frame: OverlayFrame, from puppet: Int, to node: Int) {
        if !links.contains(Self.key(puppet, node)) { establish(puppet, node) }
        deliver(frame, from: puppet, to: node)
    }

    /// Runs every event up to `duration` from now.
    public mutating func run(for duration: Duration) {
        let end = nanos + Self.ns(duration)
        while let next = queue.nextTime, next <= end, let entry = queue.pop() {
            nanos = entry.time
            handle(entry.event)
        }
        nanos = end
    }

    /// Runs until every live node has at least `activeViewMin` active peers
    /// (or all others, in a full mesh) and the active links connect them
    /// all, looking every `step`; nil if not within `limit`.
    public mutating func runUntilRepaired(step: Duration = .milliseconds(100), limit: Duration = .seconds(60)) -> Duration? {
        let start = nanos
        while nanos - start <= Self.ns(limit) {
            if isRepaired() { return .nanoseconds(nanos - start) }
            run(for: step)
        }
        return nil
    }

    // MARK: events

    private mutating func handle(_ event: SimulationEvent) {
        switch event {
        case .heard(let node, let peer):
            guard nodes[node].alive, nodes[peer].alive, nodes[node].group == nodes[peer].group else { return }
            step(node) { $0.peerHeard(Self.number(peer), now: $1) }
        case .connect(let from, let to):
            guard nodes[from].alive else { return }
            if links.contains(Self.key(from, to)) {
                step(from) { $0.linkUp(Self.number(to), now: $1) }
            } else if nodes[to].alive, nodes[to].group == nodes[from].group {
                establish(from, to)
            } else {
                queue.schedule(.linkDown(from, peer: to), at: nanos + Self.ns(config.dialFailure))
            }
        case .linkUp(let node, let peer):
            guard nodes[node].alive, links.contains(Self.key(node, peer)) else { return }
            step(node) { $0.linkUp(Self.number(peer), now: $1) }
        case .linkDown(let node, let peer):
            guard nodes[node].alive, !links.contains(Self.key(node, peer)) else { return }
            step(node) { $0.linkDown(Self.number(peer), now: $1) }
        case .frame(let frame, let from, let to):
            deliver(frame, from: from, to: to)
        case .tick(let node):
            guard nodes[node].alive, nodes[node].tickAt == nanos else { return }
            nodes[node].tickAt = -1
            step(node) { $0.tick(now: $1) }
        case .beacons:
            queue.schedule(.beacons, at: nanos + Self.ns(config.beaconInterval))
            for node in alive.sorted() where nodes[node].overlay != nil {
                for _ in 0..<config.beaconsPerInterval {
                    guard let peer = rng.pick(alive), peer != node, nodes[peer].group == nodes[node].group else { continue }
                    step(node) { $0.peerHeard(Self.number(peer), now: $1) }
                }
            }
        }
    }

    private mutating func deliver(_ frame: OverlayFrame, from: Int, to: Int) {
        guard nodes[to].alive, nodes[to].group == nodes[from].group, nodes[to].overlay != nil else { return }
        if case .gossip = frame { copies += 1 }
        step(to) { $0.received(frame, from: Self.number(from), now: $1) { $0.signature != nil } }
    }

    /// Runs one input on a node's overlay, performs the actions, reschedules its tick.
    private mutating func step(_ node: Int, _ input: (inout Overlay, Duration) -> [OverlayAction]) {
        guard var overlay = nodes[node].overlay else { return }
        nodes[node].overlay = nil  // the only copy: its tables mutate in place, not copied on write
        let actions = input(&overlay, now)
        let next = overlay.nextTick(after: now)
        nodes[node].overlay = overlay
        perform(actions, at: node)
        scheduleTick(node, at: max(Self.ns(next), nanos + 1_000))
    }

    private mutating func scheduleTick(_ node: Int, at time: Int64) {
        let current = nodes[node].tickAt
        guard current < nanos || time < current else { return }
        nodes[node].tickAt = time
        queue.schedule(.tick(node), at: time)
    }

    private mutating func perform(_ actions: [OverlayAction], at node: Int) {
        for action in actions {
            switch action {
            case .dial(let peer):
                let to = Self.index(peer)
                guard to < nodes.count else {
                    queue.schedule(.linkDown(node, peer: to), at: nanos + Self.ns(config.dialFailure))
                    continue
                }
                queue.schedule(.connect(node, to: to), at: nanos + latency(node, to))
            case .close(let peer):
                let to = Self.index(peer)
                if to < nodes.count, links.contains(Self.key(node, to)) { cut(node, to, detection: nil) }
            case .send(let frame, let peer):
                let to = Self.index(peer)
                guard to < nodes.count, links.contains(Self.key(node, to)) else { continue }
                if nodes[node].role == .censor {
                    switch frame {
                    case .gossip, .ihave: continue
                    default: break
                    }
                }
                framesSent += 1
                if case .ihave = frame { ihaveFrames += 1 }
                if case .graft(let ids) = frame { graftedIDs += ids.count }
                if config.loss > 0, Double(rng.next() % 1_000_000) / 1_000_000 < config.loss { continue }
                queue.schedule(.frame(frame, from: node, to: to), at: nanos + latency(node, to))
            case .deliver(let gossip, _):
                guard let index = trackOf[gossip.id] else { continue }
                if tracks[index].received.count < nodes.count {
                    tracks[index].received += Array(repeating: false, count: nodes.count - tracks[index].received.count)
                }
                guard !tracks[index].received[node] else { continue }
                tracks[index].received[node] = true
                hops.append(gossip.hops)
                delays.append(nanos - tracks[index].sentAt)
            }
        }
    }

    // MARK: links

    private mutating func establish(_ a: Int, _ b: Int) {
        links.insert(Self.key(a, b))
        linkChanges += 1
        linksOf[a].insert(b)
        linksOf[b].insert(a)
        step(b) { $0.linkUp(Self.number(a), now: $1) }
        step(a) { $0.linkUp(Self.number(b), now: $1) }
    }

    /// Closes a link: `a` hears at once (it closed it, or it is gone), `b`
    /// after one latency or `detection`.
    private mutating func cut(_ a: Int, _ b: Int, detection: Duration?) {
        links.remove(Self.key(a, b))
        linkChanges += 1
        linksOf[a].remove(b)
        linksOf[b].remove(a)
        let later = nanos + (detection.map(Self.ns) ?? latency(a, b))
        queue.schedule(.linkDown(a, peer: b), at: detection == nil ? nanos : later)
        queue.schedule(.linkDown(b, peer: a), at: later)
    }

    private mutating func remove(_ victims: [Int], detection: Duration?) {
        for node in victims where nodes[node].alive {
            nodes[node].alive = false
            nodes[node].overlay = nil
            if let slot = aliveSlot.removeValue(forKey: node) {
                let last = alive.removeLast()
                if last != node {
                    alive[slot] = last
                    aliveSlot[last] = slot
                }
            }
            for peer in linksOf[node].sorted() { cut(node, peer, detection: detection) }
        }
    }

    private func latency(_ a: Int, _ b: Int) -> Int64 {
        let low = Self.ns(config.minLatency), high = Self.ns(config.maxLatency)
        guard high > low else { return low }
        var mix = SeededRandom(seed: config.seed ^ Self.key(a, b))
        return low + Int64(mix.next() % UInt64(high - low))
    }

    static func key(_ a: Int, _ b: Int) -> UInt64 { UInt64(min(a, b)) << 32 | UInt64(max(a, b)) }
    static func ns(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
