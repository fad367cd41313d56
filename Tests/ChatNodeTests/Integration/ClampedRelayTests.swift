import ChatCore
import ChatWire
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A message from a clock far ahead is clamped for display, but its
/// signature covers the timestamp its author sent: the store keeps that
/// one, so the message can still be relayed and verified after its
/// author has gone.
@Suite(.realTime) struct ClampedRelayTests {
    @Test func aClampedMessageIsRelayedWithTheTimestampItsAuthorSigned() async throws {
        let network = InMemoryNetwork()
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let ahead = try await Mallory(on: network)
        try await bob.waitForPeers(1)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let signedAt = now + 3_600_000  // an hour ahead: past the clamp
        var frame = ahead.publicMessage("from an hour ahead", as: ahead.signer.identity, millis: signedAt)
        ahead.signer.authenticator.sign(&frame)
        _ = await ahead.transport.send(frame, to: bob.identity.number)

        let atBob = try await bob.waitForMessage("from an hour ahead")
        #expect(atBob.timestamp < signedAt)
        #expect(await bob.node.statistics().clampedTimestamps == 1)
        let storedAtBob = try #require(try await bob.store.message(frame.messageId))
        #expect(storedAtBob.signedTimestamp == signedAt && storedAtBob.timestamp == atBob.timestamp)

        await ahead.transport.stop()
        try await bob.waitForPeers(0)
        let carol = try await TestNode(try TestSigner("carol"), on: network)
        let atCarol = try await carol.waitForMessage("from an hour ahead")
        #expect(atCarol.senderNumber == ahead.number && atCarol.signature == frame.signature)
        #expect(atCarol.timestamp < signedAt)
        // Carol keeps the signed timestamp too, so she can relay it in turn.
        #expect(try await carol.store.message(frame.messageId)?.signedTimestamp == signedAt)
        #expect(await bob.node.statistics().relayRefusals.isEmpty)
        let counters = await carol.node.statistics()
        #expect(counters.signatureRefusals.isEmpty && counters.catchUpInvalid == 0)
    }

    @Test func theSignedTimestampSurvivesTheStoreAndStaysOffTheWire() async throws {
        let store = try ChatStore(path: nil, localNumber: NodeNumber(rawValue: 1)!)
        var ids = MessageIDGenerator()
        var payload = P2PPayload(type: .publicMessage, messageId: ids.next(millis: 1000), senderNumber: NodeNumber(rawValue: 2)!,
                                 senderNickname: "ahead", content: "hi", timestamp: 1000)
        payload.signedTimestamp = 9_000_000
        let message = try Message(from: payload, localNumber: NodeNumber(rawValue: 1)!)
        #expect(try await store.insert(message))
        #expect(try await store.message(message.id)?.signedTimestamp == 9_000_000)
        // Only the wire fields are encoded: the frame is what it was.
        let encoded = String(decoding: P2PFrameCodec.encode(payload), as: UTF8.self)
        #expect(!encoded.contains("signedTimestamp") && !encoded.contains("9000000"))
        let viaJSON = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        #expect(!viaJSON.contains("signedTimestamp"))
    }
}
