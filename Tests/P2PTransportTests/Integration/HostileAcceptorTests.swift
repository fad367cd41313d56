import ChatCore
import ChatCrypto
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// The other direction: the node under test dials (a static peer) and the
/// acceptor is hostile, with a valid key of its own. Each lie is refused
/// and counted on the dialler's side, and an honest peer linked to the
/// dialler keeps chatting. Only the first dial is answered; redials wait
/// unanswered in the listener's queue (and time out, unlinked).
@Suite(.realTime) struct HostileAcceptorTests {
    /// Bob, then Alice, who dials `listener` as a static peer; her dial is
    /// answered at once (her handshake deadline runs from the connect) by
    /// a raw acceptor holding the key `seed` names. Bob links meanwhile.
    /// The handshake deadline is long unless a test is about it: the one
    /// dial that is answered must not run out while a busy machine slows
    /// the raw acceptor, or the lie under test is never reached.
    private func setUp(_ seeds: (UInt64, UInt64), acceptor seed: UInt64,
                       handshakeTimeout: Duration = .seconds(15)) async throws -> (TestNode, TestNode, RawPeer) {
        let listener = try RawListener()
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.handshakeTimeout = handshakeTimeout
        let bob = try await TestNode.started(seeds.1, "bob", configuration: configuration)
        var withStaticPeer = configuration
        withStaticPeer.staticPeers = ["127.0.0.1:\(listener.port)"]
        let alice = try await TestNode.started(seeds.0, "alice", configuration: withStaticPeer)
        let raw = try await RawPeer.accepted(on: listener, key: TestNetwork.key(seed), nickname: "mallory")
        return (alice, bob, raw)
    }

    /// Bob links to Alice (if he had not yet) and never leaves, and his
    /// frame reaches her.
    private func bobStillChats(_ alice: TestNode, _ bob: TestNode, _ text: String) async -> Bool {
        guard await waitUntil("Bob linked", { await fullMesh([alice, bob]) }) else { return false }
        let bobLeft = alice.log.events.contains { if case .peerLeft(let number, _) = $0 { number == bob.number } else { false } }
        guard !bobLeft, await bob.service.broadcast(bob.publicMessage(text)) == 1 else { return false }
        return await alice.log.waitUntil { alice.receivedTexts.contains(text) }
    }

    private func stop(_ nodes: TestNode...) async {
        for node in nodes { await node.service.stop() }
    }

    /// The control: an acceptor that follows the protocol is linked, so
    /// the refusals below are the lies' doing.
    @Test func anAcceptorThatFollowsTheProtocolIsLinked() async throws {
        let (alice, bob, raw) = try await setUp((7_101, 7_102), acceptor: 7_103)
        try await raw.accept()
        #expect(raw.remoteHello?.senderNumber == alice.number)
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        raw.send(raw.frame(.publicMessage, content: "hi from the acceptor"))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("hi from the acceptor") })
        #expect(await bobStillChats(alice, bob, "still bob"))
        await stop(alice, bob)
    }

    /// Message 2 whose hello names Bob's number under the acceptor's own
    /// key: the dialler refuses it and closes before message 3, so the
    /// liar never learns who dialled it.
    @Test func anAcceptorsHelloClaimingAnotherNumberIsRefusedBeforeMessage3() async throws {
        let (alice, bob, raw) = try await setUp((7_111, 7_112), acceptor: 7_113)
        try await raw.awaitMessage1()
        var claim = raw.hello()
        claim.senderNumber = bob.number
        try raw.sendMessage2(hello: claim)
        #expect(await waitUntil { raw.isClosed })
        #expect(raw.receivedHandshakeMessages.count == 1, "no message 3: Alice's identity stays hers")
        #expect(await alice.service.counters().claimedNumbers == 1)
        #expect(alice.log.joined(raw.number) == nil)
        #expect(await bobStillChats(alice, bob, "still bob after a lying acceptor"))
        await stop(alice, bob)
    }

    /// The acceptor finishes the handshake and never sends its first
    /// record: the dial is closed at the handshake deadline, never linked.
    @Test func anAcceptorThatNeverAcceptsIsDroppedAtTheDeadline() async throws {
        let (alice, bob, raw) = try await setUp((7_121, 7_122), acceptor: 7_123, handshakeTimeout: .seconds(2))
        try await raw.awaitMessage1()
        try raw.sendMessage2()
        try await raw.awaitMessage3()
        // At the handshake deadline (TestNetwork: 2 s).
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().handshakeTimeout >= 1)
        #expect(alice.log.joined(raw.number) == nil)
        #expect(await bobStillChats(alice, bob, "still bob after a silent acceptor"))
        await stop(alice, bob)
    }

    /// The acceptor's first record with one bit flipped does not open:
    /// the dial is closed, never linked.
    @Test func anAcceptorsTamperedFirstRecordIsRefused() async throws {
        let (alice, bob, raw) = try await setUp((7_131, 7_132), acceptor: 7_133)
        try await raw.awaitMessage1()
        try raw.sendMessage2()
        try await raw.awaitMessage3()
        var record = raw.seal(raw.frame(.ping))
        record[record.count - 1] ^= 0x80
        raw.sendRaw(record)
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().recordFailures == 1)
        #expect(alice.log.joined(raw.number) == nil)
        #expect(await bobStillChats(alice, bob, "still bob after a tampered acceptance"))
        await stop(alice, bob)
    }

    /// The acceptor's first record is a frame in Bob's name: the dial is
    /// cut as any link whose frame names another sender, and the frame is
    /// not delivered.
    @Test func anAcceptorsFirstRecordInAnotherSendersNameCutsTheDial() async throws {
        let (alice, bob, raw) = try await setUp((7_141, 7_142), acceptor: 7_143)
        try await raw.awaitMessage1()
        try raw.sendMessage2()
        try await raw.awaitMessage3()
        raw.send(raw.frame(.publicMessage, content: "I am bob", sender: bob.number))
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().spoofed == 1)
        #expect(!alice.receivedTexts.contains("I am bob"))
        // docs/PROTOCOL.md: the dial is established when the record opens, and
        // only then is its frame checked; so the liar is reported joined,
        // then disconnected at once (a malformed first record, by contrast,
        // fails the dial unannounced).
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) == nil || alice.log.contains(.peerLeft(raw.number, .disconnected)) })
        #expect(await !alice.service.connectedPeers().contains { $0.number == raw.number })
        #expect(await bobStillChats(alice, bob, "still bob after a spoofed acceptance"))
        await stop(alice, bob)
    }
}
