import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A hostile peer holding its own valid key: it links like anyone, but
/// writes frames by hand on its in-memory transport.
struct Mallory {
    let signer: TestSigner
    let transport: InMemoryTransport
    let log: EventLog<TransportEvent>
    var number: NodeNumber { signer.identity.number }

    /// `linkKey` false: her transport proves no key, so a receiver
    /// verifies every live public message of hers in full.
    init(on network: InMemoryNetwork, linkKey: Bool = true) async throws {
        signer = try TestSigner("mallory")
        transport = network.transport(for: signer.identity, identityKey: linkKey ? signer.encodedKey : nil)
        log = EventLog(transport.events)
        try await transport.start()
    }

    /// A public message from `author`'s number, unsigned.
    func publicMessage(_ text: String, as author: NodeIdentity, millis: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) -> P2PPayload {
        var ids = MessageIDGenerator()
        return P2PPayload(
            type: .publicMessage, messageId: ids.next(millis: millis), senderNumber: author.number,
            senderNickname: author.nickname, senderStage: author.stage, content: text, timestamp: millis)
    }

    /// The history request `peer` sent us.
    func request(from peer: NodeNumber) async throws -> P2PPayload {
        try await log.first("history request from \(peer)") {
            if case .received(let payload, let from) = $0, from == peer, payload.type == .historyRequest { payload } else { nil }
        }
    }

    func reply(to refId: MessageID?, with entries: [P2PPayload]) -> P2PPayload {
        var ids = MessageIDGenerator()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var reply = P2PPayload(
            type: .historyReply, messageId: ids.next(millis: now), senderNumber: number,
            senderNickname: "mallory", timestamp: now, refId: refId)
        reply.messages = entries
        reply.more = false
        return reply
    }
}

extension TestNode {
    /// A node whose number derives from `signer`'s key and which signs and
    /// verifies public messages with it; its peers learn the key as its
    /// link's (`linkKey` false: a transport that proves no key).
    init(_ signer: TestSigner, on network: InMemoryNetwork, linkKey: Bool = true) async throws {
        try await self.init(signer.identity, on: network, authenticator: signer.authenticator,
                            identityKey: linkKey ? signer.encodedKey : nil)
    }
}

@Suite(.realTime) struct SignedMessageTests {
    /// Alice's message reaches Carol through Bob's catch-up after Alice has
    /// gone, still as Alice's, signature and key intact.
    @Test func honestMessageIsSignedStoredAndRelayed() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        try await alice.waitForPeers(1)
        let sent = try await alice.node.sendPublic("signed hello")
        #expect(sent.signature != nil && sent.authorKey != nil)
        let atBob = try await bob.waitForMessage("signed hello")
        #expect(atBob.signature == sent.signature && atBob.authorKey == sent.authorKey)
        await alice.node.stop()
        try await bob.waitForPeers(0)

        let carol = try await TestNode(try TestSigner("carol"), on: network)
        let relayed = try await carol.waitForMessage("signed hello")
        #expect(relayed.senderNumber == alice.identity.number)
        #expect(try await carol.store.message(relayed.id)?.signature == sent.signature)
        for node in [bob, carol] {
            let counters = await node.node.statistics()
            #expect(counters.signatureRefusals.isEmpty)
            #expect(counters.catchUpUnsolicited == 0 && counters.relayedClaimingSelf == 0)
        }
    }

    /// Live frames on a link that proves no key: each is verified in full,
    /// so a tampered text, a key that is not hers, and no signature are
    /// refused; her honest message is stored.
    @Test func liveForgeriesAreRefusedAndCountedWithoutALinkKey() async throws {
        let network = InMemoryNetwork()
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let mallory = try await Mallory(on: network, linkKey: false)
        try await bob.waitForPeers(1)
        let me = mallory.signer.identity

        var tampered = mallory.publicMessage("meet at 5", as: me)
        mallory.signer.authenticator.sign(&tampered)
        tampered.content = "meet at 9"
        var otherKey = mallory.publicMessage("with someone else's key", as: me)
        try TestSigner("other").authenticator.sign(&otherKey)
        otherKey.senderNumber = me.number
        let unsigned = mallory.publicMessage("unsigned", as: me)
        var honest = mallory.publicMessage("honest", as: me)
        mallory.signer.authenticator.sign(&honest)
        for frame in [tampered, otherKey, unsigned, honest] { _ = await mallory.transport.send(frame, to: bob.identity.number) }

        // One link delivers in order: once "honest" is in, the rest were judged.
        _ = try await bob.waitForMessage("honest")
        let counters = await bob.node.statistics()
        #expect(counters.signatureRefusals == ["badSignature": 1, "wrongAuthorKey": 1, "unsigned": 1])
        #expect(bob.messages().map(\.content) == ["honest"])
        #expect(try await bob.store.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["honest"])
    }

    /// Mallory answers Bob's catch-up with forgeries around one genuine
    /// message of Alice's: only the genuine one is stored.
    @Test func relayedForgeriesAreRefusedAndCounted() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        let mallory = try await Mallory(on: network)
        try await alice.waitForPeers(1)
        try await alice.node.sendPublic("real from alice")
        let genuine = try await mallory.log.first("alice's message") {
            if case .received(let payload, _) = $0, payload.type == .publicMessage { payload } else { nil }
        }
        await alice.node.stop()

        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let request = try await mallory.request(from: bob.identity.number)
        var rewritten = genuine
        rewritten.content = "meet at 9"
        var mallorysKey = mallory.publicMessage("alice says hi", as: alice.identity)
        mallory.signer.authenticator.sign(&mallorysKey)  // signs as herself, claims alice
        mallorysKey.senderNumber = alice.identity.number
        let unsigned = mallory.publicMessage("unsigned alice", as: alice.identity)
        var asBob = mallory.publicMessage("bob wrote this", as: bob.identity)
        mallory.signer.authenticator.sign(&asBob)
        asBob.senderNumber = bob.identity.number
        let entries = [rewritten, mallorysKey, unsigned, asBob, genuine]
        _ = await mallory.transport.send(mallory.reply(to: request.messageId, with: entries), to: bob.identity.number)

        _ = try await bob.waitForMessage("real from alice")
        let counters = await bob.node.statistics()
        #expect(counters.signatureRefusals == ["badSignature": 1, "wrongAuthorKey": 1, "unsigned": 1])
        #expect(counters.relayedClaimingSelf == 1)
        #expect(try await bob.store.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["real from alice"])
    }

    /// A reply to no request (no refId, a made-up one, or a second answer
    /// to one request) is refused whole, even with genuine entries.
    @Test func unsolicitedRepliesAreRefusedWhole() async throws {
        let network = InMemoryNetwork()
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let mallory = try await Mallory(on: network)
        let request = try await mallory.request(from: bob.identity.number)
        var planted = mallory.publicMessage("planted", as: mallory.signer.identity)
        mallory.signer.authenticator.sign(&planted)
        var wanted = mallory.publicMessage("wanted", as: mallory.signer.identity)
        mallory.signer.authenticator.sign(&wanted)
        var ids = MessageIDGenerator()
        let frames = [
            mallory.reply(to: nil, with: [planted]),
            mallory.reply(to: ids.next(millis: 1_732_147_200_000), with: [planted]),
            mallory.reply(to: request.messageId, with: [wanted]),
            mallory.reply(to: request.messageId, with: [planted]),  // answered already
        ]
        for frame in frames { _ = await mallory.transport.send(frame, to: bob.identity.number) }
        _ = try await bob.waitForMessage("wanted")
        try #require(await waitUntil("third unsolicited reply counted") {
            await bob.node.statistics().catchUpUnsolicited == 3
        })
        #expect(try await bob.store.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["wanted"])
        #expect(!bob.messages().contains { $0.content == "planted" })
    }

    /// Our own message coming back inside a catch-up reply (as honest
    /// peers send it within the window) is no refusal; one we never wrote is.
    @Test func ownMessageComingBackIsFineAForgedOneIsNot() async throws {
        let network = InMemoryNetwork()
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let mallory = try await Mallory(on: network)
        let request = try await mallory.request(from: bob.identity.number)
        try await bob.node.sendPublic("mine")
        let mine = try await mallory.log.first("bob's message") {
            if case .received(let payload, _) = $0, payload.type == .publicMessage { payload } else { nil }
        }
        var forged = mallory.publicMessage("bob never wrote this", as: bob.identity)
        forged.signature = mine.signature  // a real signature of bob's, over other bytes
        forged.authorKey = mine.authorKey
        _ = await mallory.transport.send(mallory.reply(to: request.messageId, with: [mine, forged]), to: bob.identity.number)
        try #require(await waitUntil("forged self-claim counted") { await bob.node.statistics().relayedClaimingSelf == 1 })
        let counters = await bob.node.statistics()
        #expect(counters.signatureRefusals.isEmpty && counters.catchUpInvalid == 0)
        #expect(try await bob.store.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["mine"])
    }
}
