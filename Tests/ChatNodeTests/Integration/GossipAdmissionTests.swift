import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A public message relayed by a peer that is not its author (the
/// overlay's gossip, ChatNode+Gossip.swift) is its author's only if its
/// signature verifies, as in a catch-up reply: stored and shown once
/// (whoever relays it again), never taken as this node's own, refused when
/// forged.
@Suite(.realTime) struct GossipAdmissionTests {
    @Test func aRelayedMessageIsStoredOnlyWhenItsSignatureHolds() async throws {
        let network = InMemoryNetwork()
        let bobSigner = try TestSigner("bob")
        let bob = try await TestNode(bobSigner, on: network)
        let mallory = try await Mallory(on: network)
        try await bob.waitForPeers(1)
        // Carol never links to bob: her messages reach him relayed.
        let carol = try TestSigner("carol")
        var genuine = mallory.publicMessage("carol, genuinely", as: carol.identity)
        carol.authenticator.sign(&genuine)
        var forged = mallory.publicMessage("carol, forged", as: carol.identity)
        carol.authenticator.sign(&forged)
        forged.content = "carol, altered"
        var unsigned = mallory.publicMessage("carol, unsigned", as: carol.identity)
        unsigned.signature = nil
        var asBob = mallory.publicMessage("bob, supposedly", as: bob.identity)
        mallory.signer.authenticator.sign(&asBob)
        // Bob's own, signed by him (say from an earlier run) and not stored: never taken from a relay.
        var ours = mallory.publicMessage("bob, earlier", as: bobSigner.identity)
        bobSigner.authenticator.sign(&ours)
        var last = mallory.publicMessage("carol, last", as: carol.identity)
        carol.authenticator.sign(&last)
        for frame in [genuine, forged, unsigned, asBob, ours, genuine, last] {
            _ = await mallory.transport.send(frame, to: bob.identity.number)
        }

        let shown = try await bob.waitForMessage("carol, last")
        #expect(shown.senderNumber == carol.identity.number)
        // Both made in one millisecond: their order is their random ids'.
        #expect(bob.messages().map(\.content).sorted() == ["carol, genuinely", "carol, last"], "once each, as carol's")
        let stored = try await bob.store.page(.publicRoom, before: nil, limit: 10)
        #expect(stored.map(\.content).sorted() == ["carol, genuinely", "carol, last"])
        #expect(stored.allSatisfy { $0.signature != nil && $0.authorKey == carol.encodedKey }, "kept signed, to relay again")
        let counters = await bob.node.statistics()
        #expect(counters.signatureRefusals == ["badSignature": 1, "unsigned": 1, "wrongAuthorKey": 1])
        #expect(counters.relayedClaimingSelf == 1)
    }
}
