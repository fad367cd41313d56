import ChatCore
import ChatNode
import ChatStore
import Synchronization
import Testing
import TestSupport

/// Real `ChatNode`s (in-memory stores) on a `SimulatedNetwork`, one
/// `ManualClock` and one seed, all run by one `SimulationExecutor`: the
/// whole LAN is a pure function of the seed, and a 50-node run takes
/// well under a second of the test's time per simulated minute.
///
/// The test never touches a node directly: `perform` runs an operation
/// inside the simulation and returns once everything it set off has
/// settled; `advance` moves the clock, firing timers and network events in
/// (time, sequence) order and settling after each. Settling is exact, not
/// a poll: the executor runs every runnable job of the simulation until
/// none is left (see `SimulationExecutor`).
final class SimulatedLAN: Sendable {
    /// One run of a node (a restart is a new one on the same store or a fresh one).
    struct Member: Sendable {
        let node: ChatNode
        let transport: SimulatedTransport
        let store: ChatStore
        let faults: FaultyStore
        let log: EventLog<NodeEvent>
        let incarnation: Int
    }

    /// An operation that did not finish while nothing else could happen:
    /// it waits for the clock or for the network.
    struct Stalled: Error, CustomStringConvertible {
        let what: String
        var description: String { "\(what) did not finish without time passing" }
    }

    let seed: UInt64
    let clock = ManualClock()
    let executor = SimulationExecutor()
    let network: SimulatedNetwork
    private let members = Mutex<[NodeNumber: Member]>([:])
    /// What `sendPublic` sent, by id: a failure names the messages.
    private let sentTexts = Mutex<[MessageID: String]>([:])

    init(seed: UInt64, faults: SimulatedFaults = .none, keepingTrace: Bool = false) {
        self.seed = seed
        network = SimulatedNetwork(clock: clock, seed: seed, faults: faults, keepingTrace: keepingTrace)
    }

    static func number(_ n: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(n))! }

    subscript(_ n: Int) -> Member {
        members.withLock { $0[Self.number(n)]! }
    }

    // MARK: running

    /// Runs `operation` inside the simulation and settles; throws `Stalled`
    /// if it is still waiting then.
    @discardableResult
    func perform<T: Sendable>(_ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await executor.run { [self] in settle(what, operation) }.get()
    }

    /// `perform`'s body, on the simulation's thread: starts `operation`
    /// there and runs until nothing can run. Steps made of many operations
    /// call this in one `executor.run`, so the test's task does not wait
    /// for the (busy) cooperative pool between them.
    private func settle<T: Sendable>(_ what: String, _ operation: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task(executorPreference: executor) {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        executor.runUntilIdle()
        return outcome.withLock { $0 } ?? .failure(Stalled(what: what))
    }

    /// Moves the clock by `duration`, firing on the way every timer and
    /// network event that comes due, in order, settling after each.
    func advance(by duration: Duration) async {
        await executor.run { [self] in
            _ = runLoop(until: clock.uptime() + duration, stopWhenQuiet: false)
        }
    }

    /// Runs until nothing is in flight and no timer waits (true), or until
    /// `limit` of simulated time has passed (false).
    func runUntilQuiet(within limit: Duration = .seconds(300)) async -> Bool {
        await executor.run { [self] in runLoop(until: clock.uptime() + limit, stopWhenQuiet: true) }
    }

    /// The simulation's loop, on its thread. Returns whether it went quiet.
    private func runLoop(until target: Duration, stopWhenQuiet: Bool) -> Bool {
        while true {
            executor.runUntilIdle()
            if network.fireNext() { continue }
            let next = [network.nextDue, clock.nextDeadline].compactMap { $0 }.min()
            guard let next else {
                if stopWhenQuiet { return true }
                break
            }
            guard next <= target else { break }
            clock.advance(by: max(.zero, next - clock.uptime()))
        }
        if target > clock.uptime() { clock.advance(by: target - clock.uptime()) }
        executor.runUntilIdle()
        return network.pendingEvents == 0 && clock.sleeperCount == 0
    }

    // MARK: nodes

    /// Starts nodes 1...count (each links to the others as the network
    /// brings the links up: advance the clock for that).
    func startNodes(_ count: Int) async throws {
        for n in 1...count { try await start(n) }
    }

    /// Starts node `n` on `store` (a fresh in-memory one if nil).
    func start(_ n: Int, store: ChatStore? = nil, incarnation: Int = 0) async throws {
        let identity = NodeIdentity(number: Self.number(n), nickname: "n\(n)")
        let store = try store ?? ChatStore(path: nil, localNumber: identity.number)
        let transport = network.transport(for: identity, incarnation: incarnation)
        let member = try await perform("start \(n)") { [clock] in
            let faults = FaultyStore(store, clock: clock)
            let node = ChatNode(identity: identity, transport: transport, store: faults, clock: clock)
            // Made inside the simulation: the log's reading task runs there too.
            let log = EventLog(node.events)
            try await node.start()
            return Member(node: node, transport: transport, store: store, faults: faults, log: log,
                          incarnation: incarnation)
        }
        members.withLock { $0[identity.number] = member }
    }

    /// Kills node `n` as `kill -9` would: no leave, peers see its links time
    /// out, and nothing it had not committed survives. Its store is kept
    /// for `restart`, fenced so the dead run cannot write to it again.
    func crash(_ n: Int) async throws {
        let member = self[n]
        try await perform("crash \(n)") {
            member.transport.crash()
            await member.faults.setDiskFull(true)
            await member.node.stop()
        }
    }

    /// Brings node `n` back after a crash: on the store it had, or fresh.
    func restart(_ n: Int, keepingStore: Bool) async throws {
        let old = self[n]
        try await start(n, store: keepingStore ? old.store : nil, incarnation: old.incarnation + 1)
    }

    func partition(_ groups: [ClosedRange<Int>]) async {
        await executor.run { [self] in
            network.partition(groups.map { $0.map(Self.number) })
            executor.runUntilIdle()
        }
    }

    func heal() async {
        await executor.run { [self] in
            network.heal()
            executor.runUntilIdle()
        }
    }

    // MARK: what nodes hold

    /// Ids of every public message node `n` stored, in store order
    /// (duplicates would show twice).
    func storedPublic(_ n: Int) async throws -> [MessageID] {
        try await storedPublic(n...n)[n]!
    }

    /// `storedPublic` of each node in `nodes`, read in one settle.
    func storedPublic(_ nodes: ClosedRange<Int>) async throws -> [Int: [MessageID]] {
        let stores = nodes.map { ($0, self[$0].store) }
        return try await perform("read stores \(nodes)") {
            var stored: [Int: [MessageID]] = [:]
            for (n, store) in stores {
                var ids: [MessageID] = []
                var cursor: HistoryCursor?
                while true {
                    let page = try await store.page(.publicRoom, after: cursor, limit: 1000)
                    ids += page.map(\.id)
                    guard page.count == 1000, let last = page.last else { break }
                    cursor = HistoryCursor(last)
                }
                stored[n] = ids
            }
            return stored
        }
    }

    /// How many peers each of nodes 1...count links to now.
    func peerCounts(_ count: Int) async throws -> [Int] {
        let nodes = (1...count).map { self[$0].node }
        return try await perform("peers") {
            var counts: [Int] = []
            for node in nodes { counts.append(await node.peers().count) }
            return counts
        }
    }

    /// How many times node `n` (this run) reported each message.
    func reported(_ n: Int) -> [MessageID: Int] {
        var counts: [MessageID: Int] = [:]
        for case .message(let message) in self[n].log.events { counts[message.id, default: 0] += 1 }
        return counts
    }

    func sendPublic(from n: Int, _ text: String) async throws -> MessageID {
        let node = self[n].node
        let id = try await perform("send from \(n)") { try await node.sendPublic(text).id }
        sentTexts.withLock { $0[id] = text }
        return id
    }

    /// Each of `messages` (sender, text) in turn: sent, then the clock
    /// moved by `gap`, as `sendPublic` and `advance` one after the other
    /// would, in one run of the simulation's thread.
    func sendPublic(_ messages: [(from: Int, text: String)], gap: Duration) async throws -> [MessageID] {
        let nodes = messages.map { self[$0.from].node }
        let ids = try await executor.run { [self] () -> Result<[MessageID], any Error> in
            var ids: [MessageID] = []
            for (node, message) in zip(nodes, messages) {
                let text = message.text
                switch settle("send from \(message.from)", { try await node.sendPublic(text).id }) {
                case .success(let id): ids.append(id)
                case .failure(let error): return .failure(error)
                }
                _ = runLoop(until: clock.uptime() + gap, stopWhenQuiet: false)
            }
            return .success(ids)
        }.get()
        sentTexts.withLock { texts in
            for (id, message) in zip(ids, messages) { texts[id] = message.text }
        }
        return ids
    }

    /// The texts of `ids` that `sendPublic` sent, for a failure message.
    func texts<S: Sequence>(of ids: S) -> [String] where S.Element == MessageID {
        sentTexts.withLock { texts in ids.map { texts[$0] ?? "\($0)" } }.sorted()
    }
}
