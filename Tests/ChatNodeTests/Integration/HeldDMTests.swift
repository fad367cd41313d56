import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A DM to a person whose verified key changed is held: stored in its
/// conversation as `held`, kept across a restart, sent when the user
/// confirms the new key, or discarded; the caps say what happened.
@Suite(.realTime) struct HeldDMTests {
    /// Bob, who verified alice, restarted on `path`; an impostor using
    /// alice's nickname is linked to him and flagged.
    struct Scene {
        var bob: TestNode
        let bobKey: TestSigner
        let impostor: TestNode
        let network: InMemoryNetwork
        let path: String
    }

    static func scene(in directory: URL) async throws -> Scene {
        let path = directory.appendingPathComponent("history.sqlite").path
        let network = InMemoryNetwork()
        let bobKey = try TestSigner("bob"), aliceKey = try TestSigner("alice")
        let bob = try await KeyContinuityTests.observer(bobKey, on: network, path: path)
        let alice = try await TestNode(aliceKey, on: network)
        try await KeyContinuityTests.joined(alice, at: bob)
        _ = try await bob.node.verify("alice", confirm: true)
        await alice.node.stop()
        try await bob.waitForPeers(0)
        let impostor = try await TestNode(try TestSigner("alice"), on: network)
        let change = try await bob.log.first("keyChanged") { if case .keyChanged(let change) = $0 { change } else { nil } }
        #expect(change.peer.number == impostor.identity.number && change.previousVerified)
        return Scene(bob: bob, bobKey: bobKey, impostor: impostor, network: network, path: path)
    }

    /// Sends `text` from `node` to `peer` and expects it held; returns its id.
    static func held(_ text: String, from node: TestNode, to peer: NodeNumber) async throws -> MessageID {
        do {
            try await node.node.sendDirect(text, to: peer)
            Issue.record("\(text) was sent, not held")
            throw CancellationError()
        } catch NodeError.held(let nickname, _, let id) {
            #expect(nickname == "alice")
            return id
        }
    }

    @Test func aHeldDMSurvivesARestartAndGoesWhenTheKeyIsConfirmed() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var scene = try await Self.scene(in: directory)
        let peer = scene.impostor.identity.number
        let id = try await Self.held("the secret", from: scene.bob, to: peer)
        // Shown in the conversation as held, not sent.
        try await scene.bob.log.first("held") { if case .delivery(id, _, .held) = $0 { true } else { nil } }
        #expect(scene.bob.messages().contains { $0.id == id })

        scene.bob = try await KeyContinuityTests.restart(scene.bob, as: scene.bobKey, on: scene.network, path: scene.path)
        #expect(await scene.bob.node.heldDMs()[peer]?.map(\.id) == [id], "read back from the store")
        #expect(await scene.bob.node.deliveryState(of: id) == .held)
        #expect(await scene.bob.node.recentMessages(in: .direct(peer)).map(\.id) == [id], "in its conversation")
        #expect(await scene.bob.node.pendingDeliveries == 0, "not in the outbox")
        try await KeyContinuityTests.joined(scene.impostor, at: scene.bob)
        #expect(try await scene.bob.node.verify("\(peer)", confirm: false).held == 1)

        let confirmed = try await scene.bob.node.verify("\(peer)", confirm: true)
        #expect(confirmed.released == 1 && confirmed.held == 0)
        let request = try await scene.impostor.log.first("the held DM") { if case .dmRequest(_, let message) = $0 { message } else { nil } }
        #expect(request.id == id && request.content == "the secret")
        try await scene.bob.log.first("delivered") { if case .delivery(id, _, .delivered) = $0 { true } else { nil } }
        #expect(await scene.bob.node.heldDMs().isEmpty)
        #expect(try await scene.bob.store.held().isEmpty)
    }

    @Test func aHeldDMCanBeDiscardedAfterARestart() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var scene = try await Self.scene(in: directory)
        let peer = scene.impostor.identity.number
        let id = try await Self.held("do not send", from: scene.bob, to: peer)
        scene.bob = try await KeyContinuityTests.restart(scene.bob, as: scene.bobKey, on: scene.network, path: scene.path)
        try await KeyContinuityTests.joined(scene.impostor, at: scene.bob)

        #expect(try await scene.bob.node.discardHeld("alice") == 1)
        try await scene.bob.log.first("discarded") { if case .delivery(id, _, .discarded) = $0 { true } else { nil } }
        #expect(await scene.bob.node.deliveryState(of: id) == .discarded)
        #expect(await scene.bob.node.heldDMs().isEmpty)
        // Confirming the key now sends nothing: the discarded DM is final.
        #expect(try await scene.bob.node.verify("\(peer)", confirm: true).released == 0)
        #expect(await scene.bob.node.pendingDeliveries == 0)
        #expect(await scene.bob.node.deliveryState(of: id) == .discarded)
        #expect(scene.impostor.log.events.allSatisfy { if case .dmRequest = $0 { false } else { true } })
    }

    @Test func theCapSaysWhatHappened() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let scene = try await Self.scene(in: directory)
        let peer = scene.impostor.identity.number
        // The impostor opens the conversation and bob accepts: then many can wait.
        try await KeyContinuityTests.joined(scene.bob, at: scene.impostor)
        try await scene.impostor.node.sendDirect("it is me", to: scene.bob.identity.number)
        try await scene.bob.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await scene.bob.node.accept("\(peer)")
        for index in 0..<32 { _ = try await Self.held("held \(index)", from: scene.bob, to: peer) }
        await #expect(throws: NodeError.notHeld(nickname: "alice", reason: "32 DMs to alice already wait, the most one person can have held")) {
            try await scene.bob.node.sendDirect("one too many", to: peer)
        }
        #expect(try await scene.bob.store.held().count == 32, "the refused one left no trace")
    }
}
