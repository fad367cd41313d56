import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A live public message from its author is admitted on the strength of
/// the author's link (no Ed25519 verify), and stored unverified; before a
/// node relays it to anyone it verifies the signature, and never relays
/// one that fails.
@Suite(.realTime) struct LinkAuthenticatedTests {
    /// On Mallory's own link, anything the link cannot vouch for is
    /// refused and counted: a key not the link's, a signature of the wrong
    /// length, no signature. Her own message is shown, and so is Alice's
    /// genuine message she relays: not on the strength of the link but of
    /// Alice's signature, as the overlay's gossip relays it (GossipAdmissionTests).
    @Test func liveMessageNotFromTheLinksKeyIsRefused() async throws {
        let network = InMemoryNetwork()
        let mallory = try await Mallory(on: network)
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        try await alice.waitForPeers(1)
        try await alice.node.sendPublic("alice, genuinely")
        let genuine = try await mallory.log.first("alice's message") {
            if case .received(let payload, _) = $0, payload.type == .publicMessage { payload } else { nil }
        }
        await alice.node.stop()

        let bob = try await TestNode(try TestSigner("bob"), on: network)
        try await bob.waitForPeers(1)
        let me = mallory.signer.identity
        var otherKey = mallory.publicMessage("with someone else's key", as: me)
        try TestSigner("other").authenticator.sign(&otherKey)
        otherKey.senderNumber = me.number
        var short = mallory.publicMessage("short signature", as: me)
        mallory.signer.authenticator.sign(&short)
        short.signature = String(short.signature!.dropLast(4))
        let unsigned = mallory.publicMessage("unsigned", as: me)
        var honest = mallory.publicMessage("honest", as: me)
        mallory.signer.authenticator.sign(&honest)
        for frame in [otherKey, genuine, short, unsigned, honest] {
            _ = await mallory.transport.send(frame, to: bob.identity.number)
        }

        // One link delivers in order: once "honest" is in, the rest were judged.
        _ = try await bob.waitForMessage("honest")
        let counters = await bob.node.statistics()
        #expect(counters.signatureRefusals == ["notLinkKey": 1, "malformed": 1, "unsigned": 1])
        #expect(bob.messages().map(\.content) == ["alice, genuinely", "honest"])
        #expect(try await bob.store.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["alice, genuinely", "honest"])
    }

    /// Mallory's message with a corrupted signature comes live on her own
    /// link: Bob shows it (the link proves she wrote it), but a third node
    /// catching up from Bob never receives it, asked twice, and Bob counts
    /// it once. Her valid message is relayed with its signature intact.
    @Test func corruptedSignatureIsShownButNeverRelayed() async throws {
        let network = InMemoryNetwork()
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let mallory = try await Mallory(on: network)
        try await bob.waitForPeers(1)
        let me = mallory.signer.identity
        var corrupted = mallory.publicMessage("meet at 5", as: me)
        mallory.signer.authenticator.sign(&corrupted)
        corrupted.content = "meet at 9"  // the signature no longer covers the text
        var valid = mallory.publicMessage("valid", as: me)
        mallory.signer.authenticator.sign(&valid)
        for frame in [corrupted, valid] { _ = await mallory.transport.send(frame, to: bob.identity.number) }
        _ = try await bob.waitForMessage("valid")
        #expect(bob.messages().map(\.content) == ["meet at 9", "valid"])
        #expect(await bob.node.statistics().signatureRefusals.isEmpty)
        await mallory.transport.stop()
        try await bob.waitForPeers(0)

        let dave = try await Mallory(on: network)
        try await bob.waitForPeers(1)
        for round in 1...2 {
            let reply = try await dave.catchUp(from: bob.identity.number, round: round)
            let entries = reply.messages ?? []
            #expect(entries.map(\.content) == ["valid"])
            #expect(entries.first?.signature == valid.signature && entries.first?.authorKey == valid.authorKey)
            #expect(entries.first.map { mallory.signer.authenticator.verify($0) } == .valid)
        }
        let counters = await bob.node.statistics()
        #expect(counters.relayRefusals == ["badSignature": 1])
        // Both stored (same millisecond: the page's order between them is the ids').
        #expect(try await bob.store.page(.publicRoom, before: nil, limit: 10).map(\.content).sorted() == ["meet at 9", "valid"])
    }
}

extension Mallory {
    /// Asks `peer` for its history from the start (first contact) and
    /// returns its reply; `round` tells apart the replies of several asks.
    func catchUp(from peer: NodeNumber, round: Int) async throws -> P2PPayload {
        var ids = MessageIDGenerator()
        let now = Int64(Date().timeIntervalSince1970 * 1000) + Int64(round)
        var request = P2PPayload(
            type: .historyRequest, messageId: ids.next(millis: now), senderNumber: number,
            senderNickname: "dave", timestamp: now)
        request.catchUp = CatchUpCursor(epoch: "", seq: 0)
        request.limit = 50
        _ = await transport.send(request, to: peer)
        return try await log.first("history reply \(round)") {
            if case .received(let payload, let from) = $0, from == peer, payload.type == .historyReply,
               payload.refId == request.messageId { payload } else { nil }
        }
    }
}
