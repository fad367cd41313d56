import ChatCore
import ChatNode
@testable import ChatStore
import Foundation
import Testing
import TestSupport

/// The sender's `delivered` mark is the one write committed without an
/// fsync of its own (ChatStore.docc/Durability.md): what the ack path
/// writes that way, and that a mark lost to a power cut is repaired by the
/// protocol (resent, not stored twice, acknowledged again).
@Suite(.realTime) struct DeliveredMarkTests {
    @Test func onlyTheSendersDeliveredMarkCommitsWithoutItsFsync() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network, path: directory.appendingPathComponent("alice.sqlite").path)
        let bob = try await TestNode("bob", number: 2, on: network, path: directory.appendingPathComponent("bob.sqlite").path)
        try await alice.waitForPeers(1)
        try await alice.openConversation(with: bob)
        try #require(await waitUntil("the request acknowledged") { await alice.node.pendingDeliveries == 0 })
        try await alice.store.recordSynchronousAtCommits()
        try await bob.store.recordSynchronousAtCommits()

        let id = try await alice.node.sendDirect("one", to: bob.identity.number).id
        try #require(await waitUntil("delivered") { await alice.node.deliveryState(of: id) == .delivered })
        // Alice: the DM queued and its `sent` mark at FULL (and any key
        // ledger write), the `delivered` mark alone at NORMAL. Bob stores
        // the DM at FULL before he acknowledges it.
        let aliceLevels = try await alice.store.synchronousAtCommits()
        #expect(aliceLevels.filter { $0 == 1 }.count == 1, "\(aliceLevels)")
        #expect(aliceLevels.filter { $0 == 2 }.count == aliceLevels.count - 1, "\(aliceLevels)")
        let bobLevels = try await bob.store.synchronousAtCommits()
        #expect(!bobLevels.isEmpty && bobLevels.allSatisfy { $0 == 2 }, "\(bobLevels)")
        #expect(try await alice.store.pragma("synchronous") == "2")
    }

    @Test func aDeliveredMarkLostToAPowerCutIsResentAndAcknowledgedAgainButStoredOnce() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let alicePath = directory.appendingPathComponent("alice.sqlite").path
        let alice = try await TestNode("alice", number: 1, on: network, clock: clock, path: alicePath)
        let bob = try await TestNode("bob", number: 2, on: network, clock: clock,
                                     path: directory.appendingPathComponent("bob.sqlite").path)
        try await alice.waitForPeers(1)
        try await alice.openConversation(with: bob)
        let id = try await alice.node.sendDirect("only once", to: bob.identity.number).id
        try await NodeFixture.retryUntil("delivered", clock: clock) { await alice.node.pendingDeliveries == 0 }
        #expect(await alice.node.deliveryState(of: id) == .delivered)
        let acksBefore = await bob.node.statistics().acksSent

        // The power cut: alice's node is gone and the mark, the one commit
        // not fsynced, never reached the disk.
        await alice.transport.crash()
        #expect(try await alice.store.forgetDelivered(id) == 1)
        // Read from the file the restart opens, before it: the restarted
        // node resends on the link it finds at once, and bob's ack may mark
        // it delivered again before a test reads it there (failed once in
        // a parallel swift test).
        #expect(try await alice.store.delivery(of: id) == .sent, "the mark is lost")
        await alice.store.close()

        let aliceAgain = try await TestNode("alice", number: 1, on: network, clock: clock, path: alicePath)
        // The store says delivered when the commit returns, the outbox a moment later.
        try await NodeFixture.retryUntil("acknowledged again", clock: clock) {
            let state = await aliceAgain.node.deliveryState(of: id), pending = await aliceAgain.node.pendingDeliveries
            return state == .delivered && pending == 0
        }
        #expect(try await aliceAgain.store.undelivered().isEmpty)
        // Bob got it again, stored and showed it once, and acknowledged it again.
        let bobStats = await bob.node.statistics()
        #expect(bobStats.duplicates >= 1)
        #expect(bobStats.acksSent > acksBefore)
        #expect(try await bob.storedDMs(from: alice) == ["hello bob", "only once"])
        #expect(bob.messages().filter { $0.id == id }.count == 1)
    }
}

extension ChatStore {
    /// Puts a delivered DM back to `sent`, as a power cut that dropped its
    /// unsynced mark leaves it (the store itself never moves a state back).
    /// Returns the rows changed.
    fileprivate func forgetDelivered(_ id: MessageID) throws(StoreError) -> Int {
        try db().withStatement("UPDATE messages SET delivery = 'sent' WHERE id = ?1 AND delivery = 'delivered'") { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            try statement.run()
        }
        return try db().changes
    }
}
