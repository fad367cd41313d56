import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// Random commit failures and restarts over random traffic (seeded, so a
/// failing seed replays): afterwards every message whose send returned is
/// stored at each receiver, and no delivery state went backwards.
@Suite(.realTime) struct CommitPropertyTests {
    @Test(arguments: [11, 12] as [UInt64])
    func everyAcceptedMessageArrivesDespiteFailingCommitsAndRestarts(seed: UInt64) async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let paths = ["alice", "bob"].map { directory.appendingPathComponent("\($0).sqlite").path }
        var nodes = [
            try await TestNode("alice", number: 1, on: network, clock: clock, path: paths[0]),
            try await TestNode("bob", number: 2, on: network, clock: clock, path: paths[1]),
            try await TestNode("carol", number: 3, on: network, clock: clock),
        ]
        var retired: [TestNode] = []
        try await nodes[0].waitForPeers(2)
        try await nodes[0].openConversation(with: nodes[1])
        for (index, node) in nodes.enumerated() { await node.faults.setFailureRate(0.25, seed: seed &+ UInt64(index)) }

        var random = SeededRandom(seed: seed)
        var publicSent: [(from: Int, id: MessageID)] = []
        var dmsSent: [(from: Int, to: Int, id: MessageID)] = []
        for step in 0..<80 {
            let from = Int(random.next() % 2)
            let other = 1 - from
            do {
                if random.chance(0.5) {
                    publicSent.append((from, try await nodes[from].node.sendPublic("public \(step)").id))
                } else {
                    let id = try await nodes[from].node.sendDirect("dm \(step)", to: nodes[other].identity.number).id
                    dmsSent.append((from, other, id))
                }
            } catch {
                // Refused: not queued, not promised.
                #expect(String(describing: error).contains("history store failed"))
            }
            if random.chance(0.05) {
                // A restart of alice or bob on the same file.
                let who = Int(random.next() % 2)
                await nodes[who].transport.crash()
                retired.append(nodes[who])
                let name = who == 0 ? "alice" : "bob"
                nodes[who] = try await TestNode(name, number: UInt64(who + 1), on: network, clock: clock, path: paths[who])
                await nodes[who].faults.setFailureRate(0.25, seed: seed &+ UInt64(step))
            }
            if step % 10 == 0 { clock.advance(by: .seconds(31)) }
        }

        // The faults end; links go down and up again so catch-up runs.
        for node in nodes { await node.faults.setFailureRate(0) }
        let pairs = [(0, 1), (0, 2), (1, 2)].map { (nodes[$0.0].identity.number, nodes[$0.1].identity.number) }
        for (a, b) in pairs { await network.cut(a, b) }
        let linked = nodes
        try #require(await waitUntil("links down") {
            for node in linked where !(await node.node.peers().isEmpty) { return false }
            return true
        })
        for (a, b) in pairs { await network.heal(a, b) }
        try await NodeFixture.retryUntil("every DM acknowledged", clock: clock) {
            for node in linked where await node.node.pendingDeliveries > 0 { return false }
            return true
        }
        // Public messages a failed commit lost are asked of their author in
        // a full chain (`CatchUpRound.recover`), not a probe of 20 that
        // could end before them (seed 11 once showed that gap).
        try #require(await waitUntil("public messages everywhere", within: .seconds(20)) {
            for node in linked {
                let stored = try await node.storedPublic()
                if !publicSent.allSatisfy({ stored.contains($0.id) }) { return false }
            }
            return true
        })
        for dm in dmsSent {
            let room = RoomID.direct(nodes[dm.from].identity.number)
            #expect(try await nodes[dm.to].store.message(dm.id)?.room == room, "DM \(dm.id) not stored at its receiver")
            #expect(await nodes[dm.from].node.deliveryState(of: dm.id) == .delivered)
        }
        // Delivery events only move forward, in every log of every run.
        for node in retired + nodes {
            var last: [MessageID: DeliveryState] = [:]
            for case .delivery(let id, _, let state) in node.log.events {
                if let previous = last[id] { #expect(previous.canMove(to: state), "\(id): \(previous) then \(state)") }
                last[id] = state
            }
        }
        #expect(publicSent.count + dmsSent.count > 20)
        var failures = 0
        for node in retired + nodes { failures += await node.faults.failures }
        #expect(failures > 10, "the faults were injected")
    }
}
