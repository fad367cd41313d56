import ChatCore
import ChatNode
import Testing
import TestSupport

/// Whole nodes on the simulated LAN (`SimulatedLAN`): one seed, one manual
/// clock, no sockets. A failing run names its seed; the same seed replays
/// it exactly (`SimulatedNetwork.trace` holds every delivery).
@Suite struct SimulatedLANTests {
    /// Loss as TCP shows it (a reset link: what was in flight is gone, the
    /// link comes back 50-500 ms later), duplicates, frames overtaking each
    /// other on a link, and 1-20 ms of latency.
    static let rough = SimulatedFaults(latency: 1...20, duplicate: 0.05, reorder: 0.1, reset: 0.002)

    @Test func fiftyNodesFormTheirMeshAndEveryMessageReachesEveryNodeOnce() async throws {
        let lan = try await Self.mesh(50, seed: 50)
        var sent: [MessageID] = []
        for round in 1...2 {
            sent += try await lan.sendPublic((1...50).map { ($0, "round \(round) from n\($0)") }, gap: .milliseconds(3))
        }
        #expect(await lan.runUntilQuiet(), "seed \(lan.seed)")
        try await expectEveryNodeHoldsOnce(sent, on: lan, nodes: 1...50)
        let counters = lan.network.counters
        #expect(counters.duplicated > 0 && counters.reordered > 0 && counters.resets > 0, "\(counters)")
    }

    @Test func aHealedPartitionCatchesEveryNodeUp() async throws {
        let (lan, sent) = try await Self.partitionedChat(nodes: 50, seed: 7)
        try await expectEveryNodeHoldsOnce(sent, on: lan, nodes: 1...50)
    }

    @Test func directMessagesAcrossAHealedPartitionAreDeliveredOnceAndAcknowledged() async throws {
        let lan = try await Self.mesh(20, seed: 11)
        let alice = lan[1].node, bob = lan[15].node
        try await lan.perform("request") { try await alice.sendDirect("hello n15", to: SimulatedLAN.number(15)) }
        await lan.advance(by: .milliseconds(200))
        try await lan.perform("accept") { try await bob.accept("1") }
        await lan.advance(by: .milliseconds(200))

        await lan.partition([1...10, 11...20])
        var fromAlice: [MessageID] = [], fromBob: [MessageID] = []
        for i in 1...3 {
            fromAlice.append(try await lan.perform("dm") { try await alice.sendDirect("a\(i)", to: SimulatedLAN.number(15)).id })
            fromBob.append(try await lan.perform("dm") { try await bob.sendDirect("b\(i)", to: SimulatedLAN.number(1)).id })
            await lan.advance(by: .milliseconds(50))
        }
        await lan.advance(by: .seconds(2))
        #expect(try await lan.perform("pending") { await alice.pendingDeliveries } == 3)
        await lan.heal()
        #expect(await lan.runUntilQuiet(), "seed \(lan.seed)")

        for (sender, receiver, ids) in [(1, 15, fromAlice), (15, 1, fromBob)] {
            let node = lan[sender].node, store = lan[receiver].store
            let stored = try await lan.perform("stored") {
                try await store.page(.direct(SimulatedLAN.number(sender)), after: nil, limit: 100).map(\.id)
            }
            #expect(stored.filter(Set(ids).contains) == ids, "\(receiver) stores \(sender)'s DMs once, in order (seed \(lan.seed))")
            #expect(lan.reported(receiver).filter { ids.contains($0.key) }.values.allSatisfy { $0 == 1 })
            let states = try await lan.perform("states") { () -> [DeliveryState?] in
                var states: [DeliveryState?] = []
                for id in ids { states.append(await node.deliveryState(of: id)) }
                return states
            }
            #expect(states == [.delivered, .delivered, .delivered], "seed \(lan.seed)")
            #expect(try await lan.perform("pending") { await node.pendingDeliveries } == 0)
        }
    }

    @Test func theSameSeedReplaysExactlyAndAnotherStillConverges() async throws {
        let (first, sent) = try await Self.partitionedChat(nodes: 20, seed: 1234, keepingTrace: true)
        let (second, _) = try await Self.partitionedChat(nodes: 20, seed: 1234, keepingTrace: true)
        #expect(first.network.trace.count > 1000)
        #expect(first.network.counters == second.network.counters)
        #expect(first.network.digest == second.network.digest, "\(Self.firstDifference(first, second))")
        try await expectEveryNodeHoldsOnce(sent, on: first, nodes: 1...20)

        let (other, otherSent) = try await Self.partitionedChat(nodes: 20, seed: 4321)
        #expect(other.network.digest != first.network.digest)
        try await expectEveryNodeHoldsOnce(otherSent, on: other, nodes: 1...20)
    }

    @Test func aCrashedNodeKeepsWhatItCommittedAndGetsWhatItMissed() async throws {
        let lan = try await Self.mesh(20, seed: 99)
        var sent: [MessageID] = []
        func chat(_ senders: [Int], _ label: String) async throws {
            sent += try await lan.sendPublic(senders.map { ($0, "\(label) from n\($0)") }, gap: .milliseconds(2))
        }
        try await chat(Array(1...20), "before")
        // Node 7 crashes with its own last message and others' still in flight.
        try await chat([7, 3, 12], "in flight")
        let committed = try await lan.storedPublic(7)
        try await lan.crash(7)
        try await lan.crash(8)
        try await chat(Array(1...20).filter { $0 != 7 && $0 != 8 }, "while down")
        await lan.advance(by: .milliseconds(500))
        try await lan.restart(7, keepingStore: true)
        try await lan.restart(8, keepingStore: false)
        try await chat(Array(1...20), "after")
        #expect(await lan.runUntilQuiet(), "seed \(lan.seed)")

        let kept = Set(try await lan.storedPublic(7))
        #expect(kept.isSuperset(of: committed), "node 7 lost \(Set(committed).subtracting(kept).count) committed messages")
        // Node 8 came back without its disk: everything returns but its own
        // earlier message, which a peer may not hand a node as its own
        // (`admitRelayed` refuses a relayed message claiming to be ours).
        let ownLost = sent[7]
        #expect(!(try await lan.storedPublic(8)).contains(ownLost))
        try await expectEveryNodeHoldsOnce(sent.filter { $0 != ownLost }, on: lan, nodes: 1...20)
        try await expectEveryNodeHoldsOnce(sent, on: lan, nodes: 9...20)
    }

    // MARK: scenarios

    /// `count` nodes linked to each other on a clean network (checked),
    /// then `rough` from there on.
    static func mesh(_ count: Int, seed: UInt64, keepingTrace: Bool = false) async throws -> SimulatedLAN {
        let lan = SimulatedLAN(seed: seed, keepingTrace: keepingTrace)
        try await lan.startNodes(count)
        await lan.advance(by: .seconds(1))
        for (index, peers) in try await lan.peerCounts(count).enumerated() {
            #expect(peers == count - 1, "node \(index + 1) links to \(peers) peers (seed \(seed))")
        }
        lan.network.faults = rough
        return lan
    }

    /// Two halves that chat apart (every node says one thing), then heal
    /// and run until quiet.
    static func partitionedChat(nodes count: Int, seed: UInt64, keepingTrace: Bool = false)
        async throws -> (SimulatedLAN, [MessageID]) {
        let lan = try await mesh(count, seed: seed, keepingTrace: keepingTrace)
        await lan.partition([1...(count / 2), (count / 2 + 1)...count])
        await lan.advance(by: .milliseconds(100))
        let sent = try await lan.sendPublic((1...count).map { ($0, "apart, from n\($0)") }, gap: .milliseconds(3))
        await lan.advance(by: .seconds(2))
        for n in [1, count] {
            let side = n == 1 ? 1...(count / 2) : (count / 2 + 1)...count
            let held = Set(try await lan.storedPublic(n))
            #expect(held.isSubset(of: Set(side.map { sent[$0 - 1] })), "the partition leaked (seed \(seed))")
        }
        await lan.heal()
        #expect(await lan.runUntilQuiet(), "seed \(seed)")
        return (lan, sent)
    }

    /// Every node in `nodes` stored each of `sent` exactly once and
    /// reported it at most once (this run of the node).
    func expectEveryNodeHoldsOnce(_ sent: [MessageID], on lan: SimulatedLAN, nodes: ClosedRange<Int>) async throws {
        let expected = Set(sent)
        let storedBy = try await lan.storedPublic(nodes)
        for n in nodes {
            let stored = storedBy[n]!
            #expect(stored.count == Set(stored).count, "node \(n) stored a message twice (seed \(lan.seed))")
            let missing = expected.subtracting(stored)
            #expect(missing.isEmpty, "node \(n) misses \(missing.count) of \(sent.count): \(lan.texts(of: missing.prefix(5))) (seed \(lan.seed))")
            let twice = lan.reported(n).filter { $0.value > 1 }
            #expect(twice.isEmpty, "node \(n) reported \(twice.count) messages more than once (seed \(lan.seed))")
        }
    }

    /// Where two traces part, for a replay that did not replay.
    static func firstDifference(_ a: SimulatedLAN, _ b: SimulatedLAN) -> String {
        let left = a.network.trace.lines ?? [], right = b.network.trace.lines ?? []
        guard let index = left.indices.first(where: { $0 < right.count && left[$0] != right[$0] }) else {
            return "traces agree for \(min(left.count, right.count)) records (\(left.count) vs \(right.count))"
        }
        return "record \(index): \(left[index]) | \(right[index])"
    }
}
