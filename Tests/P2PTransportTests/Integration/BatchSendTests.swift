import ChatCore
import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// `send(batch:)`: a node step's frames in one call, each link written
/// once, with `send(_:to:)`'s and `broadcast`'s rules.
@Suite(.realTime) struct BatchSendTests {
    @Test func aBatchArrivesInOrderWithTheSingleFrameRules() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(911, "alice", configuration: configuration)
        let bob = try await TestNode.started(922, "bob", configuration: configuration)
        let carol = try await TestNode.started(933, "carol", configuration: configuration)
        let nodes = [alice, bob, carol]
        #expect(await waitUntil { await fullMesh(nodes) })

        var frames: [OutgoingFrame] = (0..<300).map { .everyone(alice.publicMessage("all \($0)")) }
        frames.insert(.to(bob.number, alice.directMessage("for bob", to: bob.number)), at: 150)
        // Refused as single frames are: a DM on the wrong link, a DM broadcast,
        // and a frame that is not from this node.
        frames.insert(.to(carol.number, alice.directMessage("not for carol", to: bob.number)), at: 10)
        frames.insert(.everyone(alice.directMessage("not to everyone", to: carol.number)), at: 20)
        frames.insert(.everyone(bob.publicMessage("forged")), at: 30)
        await alice.service.send(batch: frames)

        let toEveryone = (0..<300).map { "all \($0)" }
        var forBob = toEveryone
        forBob.insert("for bob", at: 150)
        // Exactly these, in this order: the refused frames went nowhere.
        #expect(await bob.log.waitUntil { bob.receivedTexts == forBob && carol.receivedTexts == toEveryone })
        for node in nodes { await node.service.stop() }
    }
}

extension BatchSendTests {
    /// A batch bigger than a link's queue limit is written as it is queued,
    /// not piled up until the limit cuts the link.
    @Test func aBatchLargerThanTheQueueLimitDoesNotCutTheLink() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.maxQueuedBytesPerLink = 256 * 1024
        configuration.limits.frameBurst = 1_000_000
        configuration.limits.framesPerSecond = 1_000_000
        let alice = try await TestNode.started(944, "alice", configuration: configuration)
        let bob = try await TestNode.started(955, "bob", configuration: configuration)
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        let text = String(repeating: "가", count: 240)
        let frames: [OutgoingFrame] = (0..<1024).map { .everyone(alice.publicMessage("\($0) " + text)) }
        // 1,024 frames of ~1 KB: four times the queue limit.
        await alice.service.send(batch: frames)
        #expect(await waitUntil(within: .seconds(20)) { bob.receivedTexts.count == 1024 })
        #expect(await alice.service.counters().queueOverflow == 0)
        #expect(await alice.service.connectedPeers().map(\.number) == [bob.number])
        for node in [alice, bob] { await node.service.stop() }
    }
}
