import ChatCore
import ChatOverlay
import Synchronization

/// A LAN of in-process transports on one manual clock and one seed: links
/// come up after a delay, every frame is scheduled for a time drawn from
/// the seed (with loss, duplication, reordering and link resets), and
/// partitions and crashes cut links. Nothing happens until `fireNext` runs
/// the next event, so a run is a pure function of the seed and of what the
/// nodes send (see `SimulatedLAN` in ChatNodeTests for the loop).
///
/// Events are ordered by (time, sequence); each delivery, link change and
/// loss goes into `trace`. Call everything that emits (all but the
/// accessors) on the simulation's thread (`SimulationExecutor.run`).
public final class SimulatedNetwork: Sendable {
    struct Pair: Hashable {
        let low: NodeNumber, high: NodeNumber
        init(_ a: NodeNumber, _ b: NodeNumber) { (low, high) = a < b ? (a, b) : (b, a) }
        func other(than number: NodeNumber) -> NodeNumber { number == low ? high : low }
    }

    enum Event {
        case linkUp(Pair)
        /// A frame on link `link` (a link that broke and came back is
        /// another link: what was in flight on the old one is lost).
        case frame(P2PPayload, from: NodeNumber, to: NodeNumber, link: UInt64)
    }

    struct State: ~Copyable {
        var random: SeededRandom
        var faults: SimulatedFaults
        var members: [NodeNumber: SimulatedTransport] = [:]
        /// Links up now, each with its id.
        var links: [Pair: UInt64] = [:]
        var nextLink: UInt64 = 1
        /// Link-ups scheduled and not yet fired.
        var pendingLinks: Set<Pair> = []
        /// Partition groups; nodes not named share group 0.
        var groups: [NodeNumber: Int] = [:]
        var queue = SimulationEventQueue<Duration, Event>()
        /// When the last frame on each directed link is due (links keep order).
        var lastDue: [[NodeNumber]: Duration] = [:]
        var trace: TraceDigest
        var counters = Counters()
    }

    /// What the network did, for tests to check that faults happened.
    public struct Counters: Sendable, Equatable {
        public var delivered = 0
        public var lost = 0
        public var duplicated = 0
        public var reordered = 0
        public var resets = 0
        /// Frames in flight on a link that went down.
        public var strandedInFlight = 0
    }

    private let state: Mutex<State>
    let clock: ManualClock

    public init(clock: ManualClock, seed: UInt64, faults: SimulatedFaults = .none, keepingTrace: Bool = false) {
        self.clock = clock
        state = Mutex(State(random: SeededRandom(seed: seed), faults: faults,
                            trace: TraceDigest(keepingLines: keepingTrace)))
    }

    /// A transport for `identity`; it joins on `start()`. `incarnation`
    /// tells one run of a node from the next (its instance id).
    public func transport(for identity: NodeIdentity, incarnation: Int = 0) -> SimulatedTransport {
        SimulatedTransport(info: PeerInfo(number: identity.number, nickname: identity.nickname, stage: identity.stage,
                                          instanceId: "sim-\(identity.number)-\(incarnation)", address: "sim"),
                           network: self)
    }

    public var faults: SimulatedFaults {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    public var digest: UInt64 { state.withLock { $0.trace.value } }
    public var trace: TraceDigest { state.withLock { $0.trace } }
    public var counters: Counters { state.withLock { $0.counters } }
    /// Events scheduled and not yet fired.
    public var pendingEvents: Int { state.withLock { $0.queue.count } }
    /// When the next event is due, if any.
    public var nextDue: Duration? { state.withLock { $0.queue.nextTime } }

    // MARK: membership

    func join(_ member: SimulatedTransport) {
        let number = member.info.number
        state.withLock { state in
            state.members[number] = member
            state.trace.record("\(clock.uptime().millis) join \(number)")
            for other in state.members.keys.sorted() where other != number {
                Self.scheduleLink(Pair(number, other), in: &state, now: clock.uptime())
            }
        }
    }

    /// `number` goes away: its links drop (the others see `reason`).
    func leave(_ number: NodeNumber, reason: PeerLeaveReason) {
        let notices = state.withLock { state -> [(SimulatedTransport, TransportEvent)] in
            guard let member = state.members.removeValue(forKey: number) else { return [] }
            state.trace.record("\(clock.uptime().millis) leave \(number) \(reason)")
            var notices: [(SimulatedTransport, TransportEvent)] = []
            for pair in state.links.keys.filter({ $0.low == number || $0.high == number }).sorted(by: Self.order) {
                notices += Self.dropLink(pair, in: &state, reason: reason, notifying: [pair.other(than: number)])
            }
            member.finish()
            return notices
        }
        for (member, event) in notices { member.emit(event) }
    }

    func peers(of number: NodeNumber) -> [PeerInfo] {
        state.withLock { state in
            state.links.keys.filter { $0.low == number || $0.high == number }
                .map { $0.other(than: number) }.sorted()
                .compactMap { state.members[$0]?.info }
        }
    }

    func update(_ info: PeerInfo) {
        let targets = state.withLock { state -> [SimulatedTransport] in
            state.links.keys.filter { $0.low == info.number || $0.high == info.number }
                .map { $0.other(than: info.number) }.sorted().compactMap { state.members[$0] }
        }
        for target in targets { target.emit(.peerUpdated(info)) }
    }

    // MARK: partitions

    /// Splits the nodes: each list is a group, everyone unnamed is group 0.
    /// Links across groups drop at once (both ends see a time-out).
    public func partition(_ groups: [[NodeNumber]]) {
        let notices = state.withLock { state -> [(SimulatedTransport, TransportEvent)] in
            state.groups = [:]
            for (index, group) in groups.enumerated() {
                for number in group { state.groups[number] = index + 1 }
            }
            state.trace.record("\(clock.uptime().millis) partition \(groups.map { $0.map(\.description).joined(separator: ",") })")
            var notices: [(SimulatedTransport, TransportEvent)] = []
            for pair in state.links.keys.sorted(by: Self.order) where !Self.reachable(pair, in: state) {
                notices += Self.dropLink(pair, in: &state, reason: .timedOut, notifying: [pair.low, pair.high])
            }
            return notices
        }
        for (member, event) in notices { member.emit(event) }
    }

    /// Ends the partition: every pair of live nodes links up again.
    public func heal() {
        state.withLock { state in
            state.groups = [:]
            state.trace.record("\(clock.uptime().millis) heal")
            let numbers = state.members.keys.sorted()
            for (index, a) in numbers.enumerated() {
                for b in numbers[(index + 1)...] { Self.scheduleLink(Pair(a, b), in: &state, now: clock.uptime()) }
            }
        }
    }

    // MARK: frames

    /// Schedules `payload` on the link `from`–`to`; false if there is none.
    func send(_ payload: P2PPayload, from: NodeNumber, to: NodeNumber) -> Bool {
        let notices = state.withLock { state -> [(SimulatedTransport, TransportEvent)]? in
            let pair = Pair(from, to)
            guard let link = state.links[pair] else { return nil }
            let now = clock.uptime()
            let faults = state.faults
            if state.random.chance(faults.reset) {
                state.counters.resets += 1
                state.counters.lost += 1
                state.trace.record("\(now.millis) reset \(from)>\(to)")
                let notices = Self.dropLink(pair, in: &state, reason: .timedOut, notifying: [from, to])
                let delay = Duration.milliseconds(Int.random(in: faults.reconnect, using: &state.random))
                Self.scheduleLink(pair, in: &state, now: now, after: delay)
                return notices
            }
            if state.random.chance(faults.loss) {
                state.counters.lost += 1
                state.trace.record("\(now.millis) lost \(from)>\(to) \(state.trace.describe(payload))")
                return []
            }
            var due = now + .milliseconds(Int.random(in: faults.latency, using: &state.random))
            let lastDue = state.lastDue[[from, to]] ?? .zero
            if state.random.chance(faults.reorder), due < lastDue {
                state.counters.reordered += 1
            } else {
                due = max(due, lastDue)
            }
            state.lastDue[[from, to]] = max(lastDue, due)
            state.queue.schedule(.frame(payload, from: from, to: to, link: link), at: due)
            if state.random.chance(faults.duplicate) {
                state.counters.duplicated += 1
                let again = due + .milliseconds(Int.random(in: faults.latency, using: &state.random))
                state.queue.schedule(.frame(payload, from: from, to: to, link: link), at: again)
            }
            return []
        }
        guard let notices else { return false }
        for (member, event) in notices { member.emit(event) }
        return true
    }

    /// Fires the earliest event if it is due by now; false if none is.
    public func fireNext() -> Bool {
        let now = clock.uptime()
        let notices = state.withLock { state -> [(SimulatedTransport, TransportEvent)]? in
            guard let due = state.queue.nextTime, due <= now, let event = state.queue.pop()?.event else { return nil }
            switch event {
            case .linkUp(let pair):
                state.pendingLinks.remove(pair)
                guard state.links[pair] == nil, Self.reachable(pair, in: state),
                      let low = state.members[pair.low], let high = state.members[pair.high] else { return [] }
                state.links[pair] = state.nextLink
                state.nextLink += 1
                state.trace.record("\(now.millis) link \(pair.low)-\(pair.high)")
                return [(low, .peerJoined(high.info)), (high, .peerJoined(low.info))]
            case .frame(let payload, let from, let to, let link):
                guard state.links[Pair(from, to)] == link, let target = state.members[to] else {
                    state.counters.strandedInFlight += 1
                    return []
                }
                state.counters.delivered += 1
                state.trace.record("\(now.millis) \(from)>\(to) \(state.trace.describe(payload))")
                return [(target, .received(payload, from: from))]
            }
        }
        guard let notices else { return false }
        for (member, event) in notices { member.emit(event) }
        return true
    }

    // MARK: helpers (under the lock)

    private static func order(_ a: Pair, _ b: Pair) -> Bool { (a.low, a.high) < (b.low, b.high) }

    private static func reachable(_ pair: Pair, in state: borrowing State) -> Bool {
        state.groups[pair.low, default: 0] == state.groups[pair.high, default: 0]
    }

    private static func scheduleLink(_ pair: Pair, in state: inout State, now: Duration, after delay: Duration? = nil) {
        guard state.links[pair] == nil, !state.pendingLinks.contains(pair), reachable(pair, in: state),
              state.members[pair.low] != nil, state.members[pair.high] != nil else { return }
        let wait = delay ?? .milliseconds(Int.random(in: state.faults.latency, using: &state.random))
        state.pendingLinks.insert(pair)
        state.queue.schedule(.linkUp(pair), at: now + wait)
    }

    /// Drops a link; the ends in `notifying` that are members see the other leave.
    private static func dropLink(_ pair: Pair, in state: inout State, reason: PeerLeaveReason,
                                 notifying ends: [NodeNumber]) -> [(SimulatedTransport, TransportEvent)] {
        guard state.links.removeValue(forKey: pair) != nil else { return [] }
        state.lastDue[[pair.low, pair.high]] = nil
        state.lastDue[[pair.high, pair.low]] = nil
        return ends.compactMap { end in
            state.members[end].map { ($0, .peerLeft(pair.other(than: end), reason)) }
        }
    }
}

extension Duration {
    /// Whole milliseconds, as the trace prints time.
    var millis: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
