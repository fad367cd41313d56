import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A peer can mint identities for free: a flood of fresh-key handshakes
/// must not become an fsync flood on the node's one store drainer. New
/// keys are written in batches; a key is on disk before anything from it
/// is stored, and at stop, so key continuity after a restart holds.
@Suite(.realTime) struct KeyWriteBatchTests {
    /// A transport on `network` with a fresh Ed25519 key, as a flooding peer's.
    static func freshIdentity(_ nickname: String, on network: InMemoryNetwork) throws -> InMemoryTransport {
        let key = try IdentityKey.generate()
        return network.transport(for: NodeIdentity(number: key.nodeNumber, nickname: nickname),
                                 identityKey: Data(key.publicKey.rawValue).base64EncodedString())
    }

    @Test func freshKeyHandshakesShareTheirWrites() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path
        let network = InMemoryNetwork()
        let bobKey = try TestSigner("bob")
        let bob = try await KeyContinuityTests.observer(bobKey, on: network, path: path)
        let flood = 200
        let started = ContinuousClock.now
        for index in 0..<flood { try await Self.freshIdentity("fresh\(index)", on: network).start() }
        try #require(await waitUntil("\(flood) peers", within: .seconds(30)) { await bob.node.peers().count == flood })
        let joined = ContinuousClock.now - started
        // Beside them, a message is received and stored as usual.
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        try await KeyContinuityTests.joined(alice, at: bob)
        let commits = await bob.faults.keyCommits
        print("KeyWriteBatchTests: \(flood) fresh-key handshakes joined in \(joined), \(commits) key ledger commits")
        #expect(commits <= flood / KeyLedger.writeBatch + 3, "\(commits) commits for \(flood) fresh keys")
        // Stopped cleanly: every key is on disk.
        await bob.node.stop()
        #expect(try await bob.store.keyLedger().keys.count == flood + 1)
    }

    @Test func aKeyIsWrittenBeforeItsFirstMessageIsStored() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path
        let network = InMemoryNetwork()
        let bob = try await KeyContinuityTests.observer(try TestSigner("bob"), on: network, path: path)
        let aliceKey = try TestSigner("alice")
        let alice = try await TestNode(aliceKey, on: network)
        try await KeyContinuityTests.joined(alice, at: bob)
        try await alice.node.sendPublic("first words")
        _ = try await bob.waitForMessage("first words")
        // No stop, no timer needed: the message's commit waited for the key.
        let rows = try await bob.store.keyLedger()
        #expect(rows.keys.contains { $0.key == aliceKey.encodedKey })
        #expect(rows.pins.first { $0.name == "alice" }?.key == aliceKey.encodedKey)
    }
}
