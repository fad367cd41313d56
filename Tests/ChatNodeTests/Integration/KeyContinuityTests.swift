import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// Key continuity with attackers holding their own valid keys: an impostor
/// using a known nickname is flagged after the observer restarts on the
/// same store file; verification persists; a DM to a verified person whose
/// key changed is held until the new key is confirmed; the safety number
/// is the same from both sides.
@Suite(.realTime) struct KeyContinuityTests {
    /// Bob, the observer, on the SQLite file at `path`.
    static func observer(_ signer: TestSigner, on network: InMemoryNetwork, path: String) async throws -> TestNode {
        try await TestNode(signer.identity, on: network, path: path, authenticator: signer.authenticator, identityKey: signer.encodedKey)
    }

    static func restart(_ node: TestNode, as signer: TestSigner, on network: InMemoryNetwork, path: String) async throws -> TestNode {
        await node.node.stop()
        await node.store.close()
        return try await observer(signer, on: network, path: path)
    }

    static func keyChanges(_ node: TestNode) -> [KeyChange] {
        node.log.events.compactMap { if case .keyChanged(let change) = $0 { change } else { nil } }
    }

    @Test func anImpostorAfterTheObserverRestartsIsFlagged() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path
        let network = InMemoryNetwork()
        let bobKey = try TestSigner("bob"), aliceKey = try TestSigner("alice")
        var bob = try await Self.observer(bobKey, on: network, path: path)
        let alice = try await TestNode(aliceKey, on: network)
        try await Self.joined(alice, at: bob)
        #expect(bob.node.trust(of: alice.identity.number)?.state == .new)
        await alice.node.stop()
        try await bob.waitForPeers(0)

        bob = try await Self.restart(bob, as: bobKey, on: network, path: path)
        // An impostor with its own valid key and alice's nickname, first.
        let impostorKey = try TestSigner("alice")
        let impostor = try await TestNode(impostorKey, on: network)
        let change = try await bob.log.first("keyChanged") { if case .keyChanged(let change) = $0 { change } else { nil } }
        #expect(change.peer.number == impostor.identity.number)
        #expect(change.peer.nickname == "alice")
        #expect(change.previousFingerprint == Self.fingerprint(aliceKey.encodedKey))
        #expect(change.fingerprint == Self.fingerprint(impostorKey.encodedKey))
        #expect(change.previousFirstSeen != nil && !change.previousVerified)
        // The real alice comes back: same key, no warning.
        let aliceAgain = try await TestNode(aliceKey, on: network)
        try await Self.joined(aliceAgain, at: bob)
        #expect(Self.keyChanges(bob).count == 1, "the real alice raised none")
        let trust = try #require(bob.node.trust(of: impostor.identity.number))
        #expect(trust.state == .changed && trust.previousFirstSeen == change.previousFirstSeen)
        #expect(bob.node.trust(of: aliceAgain.identity.number)?.state == .new)
        // On disk (sightings are written in batches, within a second): both
        // keys, and "alice" still belongs to the first.
        try #require(await waitUntil("both keys written") { (try? await bob.store.keyLedger().keys.count) == 2 })
        let rows = try await bob.store.keyLedger()
        #expect(rows.pins.first { $0.name == "alice" }?.key == aliceKey.encodedKey)
    }

    @Test func verifiedKeyPersistsAndAChangedOneHoldsDMsUntilConfirmed() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("history.sqlite").path
        let network = InMemoryNetwork()
        let bobKey = try TestSigner("bob"), aliceKey = try TestSigner("alice")
        var bob = try await Self.observer(bobKey, on: network, path: path)
        let alice = try await TestNode(aliceKey, on: network)
        try await Self.joined(alice, at: bob)
        try await Self.joined(bob, at: alice)

        // The same safety number on both screens, the one the vector's code computes.
        let atBob = try await bob.node.verify("alice", confirm: false)
        let atAlice = try await alice.node.verify("bob", confirm: false)
        let expected = try #require(SafetyNumber.compute(encoded: aliceKey.encodedKey, bobKey.encodedKey))
        #expect(atBob.safetyNumber == expected && atAlice.safetyNumber == expected)
        #expect(!atBob.confirmed && atBob.trust.state == .new)
        let confirmed = try await bob.node.verify("alice", confirm: true)
        #expect(confirmed.trust.state == .verified && confirmed.trust.verifiedAt != nil)
        #expect(bob.node.verifiedNodes() == [alice.identity.number])
        await alice.node.stop()
        try await bob.waitForPeers(0)

        bob = try await Self.restart(bob, as: bobKey, on: network, path: path)
        #expect(bob.node.trust(of: alice.identity.number)?.state == .verified, "read back from the store")
        let impostorKey = try TestSigner("alice")
        let impostor = try await TestNode(impostorKey, on: network)
        let change = try await bob.log.first("keyChanged") { if case .keyChanged(let change) = $0 { change } else { nil } }
        #expect(change.peer.number == impostor.identity.number && change.previousVerified)

        // Gone from the LAN, its key is still the changed one (the ledger
        // knows it): a DM is held, not queued in the outbox for its next link.
        await impostor.node.stop()
        try await bob.log.first("impostor left") { if case .peerLeft(let info, _) = $0, info.number == impostor.identity.number { true } else { nil } }
        let heldID = try await HeldDMTests.held("the secret", from: bob, to: impostor.identity.number)
        // A second is neither sent nor held: the first must open the conversation.
        await #expect(throws: NodeError.notHeld(nickname: "alice", reason: "one DM already waits, and it must open the conversation first")) {
            try await bob.node.sendDirect("the second", to: impostor.identity.number)
        }
        let stored = try await bob.store.page(.direct(impostor.identity.number), before: nil, limit: 10)
        #expect(stored.map(\.id) == [heldID], "stored, not queued")
        #expect(try await bob.store.delivery(of: heldID) == .held)
        #expect(await bob.node.pendingDeliveries == 0)
        #expect(try await bob.node.verify("\(impostor.identity.number)", confirm: false).held == 1)
        let impostorAgain = try await TestNode(impostorKey, on: network)
        try await Self.joined(impostorAgain, at: bob)
        await #expect(throws: NodeError.self) {
            try await bob.node.sendDirect("linked again", to: impostor.identity.number)
        }

        // Confirmed: the key is verified, "alice" belongs to it, the DM goes.
        let accepted = try await bob.node.verify("\(impostor.identity.number)", confirm: true)
        #expect(accepted.released == 1 && accepted.held == 0 && accepted.trust.state == .verified)
        let request = try await impostorAgain.log.first("the held DM") { if case .dmRequest(_, let message) = $0 { message } else { nil } }
        #expect(request.content == "the secret")
        try await impostorAgain.node.accept("bob")
        try await bob.log.first("accepted") { if case .dmState(_, _, .accepted) = $0 { true } else { nil } }
        _ = try await bob.node.sendDirect("not held now", to: impostor.identity.number)
        // The old alice, verified too, now shows as the changed one.
        #expect(bob.node.trust(of: alice.identity.number)?.state == .changed)
    }

    @Test func aRenameIntoAKnownNicknameIsFlaggedAndAFullDiskStillSaysIt() async throws {
        let network = InMemoryNetwork()
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        let mallory = try await TestNode(try TestSigner("mallory"), on: network)
        try await Self.joined(alice, at: bob)
        try await Self.joined(mallory, at: bob)
        #expect(Self.keyChanges(bob).isEmpty)
        // The store refuses writes: the sighting is not stored, but the
        // change is still reported from what the ledger holds.
        await bob.faults.setDiskFull(true)
        try await mallory.node.rename(nickname: "ALICE")
        let change = try await bob.log.first("keyChanged") { if case .keyChanged(let change) = $0 { change } else { nil } }
        #expect(change.peer.number == mallory.identity.number && change.peer.nickname == "ALICE")
        #expect(bob.node.trust(of: mallory.identity.number)?.state == .changed)
        #expect(try await bob.store.keyLedger().keys.first { $0.nickname == "ALICE" } == nil, "nothing written while the disk is full")
        await bob.faults.setDiskFull(false)
    }

    @Test func aDMMakesAKeyKnown() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        try await Self.joined(bob, at: alice)
        try await Self.joined(alice, at: bob)
        #expect(alice.node.trust(of: bob.identity.number)?.state == .new)
        try await alice.node.sendDirect("hi", to: bob.identity.number)
        #expect(alice.node.trust(of: bob.identity.number)?.state == .known)
        try await bob.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await bob.node.accept("alice")
        #expect(bob.node.trust(of: alice.identity.number)?.state == .known)
    }

    /// `peer`'s join reported at `node`: its key is in the ledger by then.
    static func joined(_ peer: TestNode, at node: TestNode) async throws {
        let number = peer.identity.number
        try await node.log.first("\(number) joined") { if case .peerJoined(let info) = $0, info.number == number { true } else { nil } }
    }

    static func fingerprint(_ key: String) -> String {
        (try? IdentityKey.Public(rawValue: Array(Data(base64Encoded: key)!)))!.fingerprint
    }
}
