import ChatCore
import ChatWire
import ChatCrypto
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Hostile v2 peers holding valid keys of their own: each attack on the
/// handshake or the records is refused and counted, and an honest peer
/// linked to the victim keeps chatting through it (docs/PROTOCOL.md
/// 3.2).
@Suite(.realTime) struct HostilePeerTests {
    /// Alice (the victim) linked to Bob (honest), with `configuration`.
    private func pair(_ seeds: (UInt64, UInt64), _ configuration: P2PConfiguration? = nil) async throws -> (TestNode, TestNode) {
        let configuration = configuration ?? TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(seeds.0, "alice", configuration: configuration)
        let bob = try await TestNode.started(seeds.1, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, bob]) })
        return (alice, bob)
    }

    /// Bob is still Alice's peer, on his first link (never left, same
    /// instance), and his frame reaches her.
    private func bobStillChats(_ alice: TestNode, _ bob: TestNode, _ text: String) async -> Bool {
        let bobLeft = alice.log.events.contains { if case .peerLeft(let number, _) = $0 { number == bob.number } else { false } }
        let seen = await alice.service.connectedPeers().first { $0.number == bob.number }
        guard !bobLeft, seen?.instanceId == (await bob.service.instanceId),
              await bob.service.broadcast(bob.publicMessage(text)) == 1 else { return false }
        return await alice.log.waitUntil { alice.receivedTexts.contains(text) }
    }

    private func stop(_ nodes: TestNode...) async {
        for node in nodes { await node.service.stop() }
    }

    /// A valid handshake under the attacker's own key whose hello names
    /// someone else's number: a live peer's, or the victim's own. The
    /// number is derived from the verified key, so the claim is refused
    /// before any link rule runs, and the claimant is never accepted.
    @Test func aHelloClaimingAnotherNumberIsRefused() async throws {
        let (alice, bob) = try await pair((7_001, 7_002))
        let port = await alice.service.listeningPort
        for (index, claimed) in [bob.number, alice.number].enumerated() {
            let raw = try RawPeer(connectingTo: port, seed: 7_090 + UInt64(index), "mallory")
            var hello = raw.hello()
            hello.senderNumber = claimed
            try raw.sendMessage1()
            try await raw.awaitMessage2()
            try raw.sendMessage3(hello: hello)
            #expect(await waitUntil { raw.isClosed }, "claiming \(claimed)")
            #expect(raw.frames.isEmpty, "claiming \(claimed): never accepted")
            #expect(await alice.service.counters().claimedNumbers == index + 1)
            #expect(alice.log.joined(raw.number) == nil)
        }
        #expect(await alice.service.counters().identityConflicts == 0, "no restart probe ran")
        #expect(alice.log.events.count { if case .peerJoined = $0 { true } else { false } } == 1, "Bob's join only")
        #expect(await bobStillChats(alice, bob, "still bob after the claims"))
        await stop(alice, bob)
    }

    /// A recorded session's messages 1 and 3, replayed on new connections
    /// (step by step, and blind in one write): message 1 is only an
    /// ephemeral key, so it gets a fresh message 2, but message 3 was
    /// encrypted for the old session's keys and never opens. No link.
    @Test func replayedHandshakeMessagesFromAnEarlierSessionDoNotLink() async throws {
        let (alice, bob) = try await pair((7_011, 7_012))
        let port = await alice.service.listeningPort
        let recorded = try RawPeer(connectingTo: port, seed: 7_013, "carol")
        try await recorded.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(recorded.number) != nil })
        recorded.send(recorded.frame(.leave))
        try #require(await alice.log.waitUntil { alice.log.contains(.peerLeft(recorded.number, .left)) })
        try #require(recorded.sentHandshakeMessages.count == 2)
        let (message1, message3) = (recorded.sentHandshakeMessages[0], recorded.sentHandshakeMessages[1])

        let stepwise = try RawPeer(connectingTo: port, seed: 7_014, "replayer")
        stepwise.sendFramed(message1)
        #expect(await waitUntil { !stepwise.receivedHandshakeMessages.isEmpty }, "a fresh message 2")
        #expect(stepwise.receivedHandshakeMessages.first != recorded.receivedHandshakeMessages.first)
        stepwise.sendFramed(message3)
        #expect(await waitUntil { stepwise.isClosed })
        #expect(await alice.service.counters().handshakeFailures == 1)

        let blind = try RawPeer(connectingTo: port, seed: 7_015, "replayer")
        blind.sendRaw(RawPeer.framed(message1) + RawPeer.framed(message3))
        #expect(await waitUntil { blind.isClosed })
        #expect(await alice.service.counters().handshakeFailures == 2)

        #expect(blind.frames.isEmpty && stepwise.frames.isEmpty, "no acceptance record")
        let joins = alice.log.events.count { if case .peerJoined(let info) = $0 { info.number == recorded.number } else { false } }
        #expect(joins == 1, "only the recorded session itself linked")
        #expect(await alice.service.connectedPeers().map(\.number) == [bob.number])
        #expect(await bobStillChats(alice, bob, "still bob after the replays"))
        await stop(alice, bob)
    }

    /// One bit flipped in a record (in the ciphertext, or in the tag):
    /// it does not open, the link is cut at once and nothing is delivered.
    @Test(arguments: [0, 20, -1] as [Int])
    func aRecordWithOneBitFlippedCutsTheLink(offset: Int) async throws {
        let (alice, bob) = try await pair((7_021, 7_022))
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 7_023, "mallory")
        try await raw.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        var record = raw.seal(raw.frame(.publicMessage, content: "tampered"))
        // After the 2-byte length; -1 is the tag's last byte.
        let index = offset < 0 ? record.count - 1 : 2 + offset
        record[index] ^= 0x01
        raw.sendRaw(record)
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(raw.number, .disconnected)) })
        #expect(await alice.service.counters().recordFailures == 1)
        #expect(!alice.receivedTexts.contains("tampered"))
        #expect(await bobStillChats(alice, bob, "still bob after a tampered record"))
        await stop(alice, bob)
    }

    /// A record sent twice, and two records swapped: the nonce is implicit,
    /// so the second copy (or the early one) never opens and the link is cut.
    @Test func aReplayedOrReorderedRecordCutsTheLink() async throws {
        let (alice, bob) = try await pair((7_031, 7_032))
        let port = await alice.service.listeningPort
        let replayer = try RawPeer(connectingTo: port, seed: 7_033, "mallory")
        try await replayer.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(replayer.number) != nil })
        replayer.send(replayer.frame(.publicMessage, content: "once"))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("once") })
        replayer.sendRaw(replayer.sentRecords[0])
        #expect(await waitUntil { replayer.isClosed })
        #expect(await alice.service.counters().recordFailures == 1)
        #expect(alice.receivedTexts.count { $0 == "once" } == 1)

        let swapper = try RawPeer(connectingTo: port, seed: 7_034, "mallory")
        try await swapper.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(swapper.number) != nil })
        let first = swapper.seal(swapper.frame(.publicMessage, content: "first"))
        let second = swapper.seal(swapper.frame(.publicMessage, content: "second"))
        swapper.sendRaw(second + first)
        #expect(await waitUntil { swapper.isClosed })
        #expect(await alice.service.counters().recordFailures == 2)
        #expect(!alice.receivedTexts.contains("first") && !alice.receivedTexts.contains("second"))
        #expect(await bobStillChats(alice, bob, "still bob after replayed records"))
        await stop(alice, bob)
    }

    /// A protocol v1 node (its first byte is `{`) gets one v1 line naming
    /// both versions, then the connection closes; the log names the
    /// address once however often it comes back.
    @Test func aVersion1HelloIsRefusedWithALineNamingBothVersions() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let recording = RecordingLogger()
        let alice = TestNode(7_041, "alice", configuration: configuration, logger: recording.logger())
        try await alice.service.start()
        let bob = try await TestNode.started(7_042, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, bob]) })
        let port = await alice.service.listeningPort
        for attempt in 1...2 {
            let old = try RawPeer(connectingTo: port, seed: 7_043, "oldtimer")
            var hello = old.hello()
            hello.version = 1
            old.sendRaw(Array(P2PFrameCodec.encode(hello)))
            #expect(await waitUntil { old.isClosed })
            let lines = old.receivedBytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            try #require(lines.count == 2 && lines[1].isEmpty, "exactly one line: \(String(decoding: old.receivedBytes, as: UTF8.self))")
            let refusal = try #require(try JSONSerialization.jsonObject(with: Data(lines[0])) as? [String: Any])
            #expect(refusal["type"] as? String == "versionRefused")
            let content = try #require(refusal["content"] as? String)
            #expect(content.contains("protocol 2") && content.contains("protocol 1"), "\(content)")
            #expect(await alice.service.counters().versionRefusals == attempt)
        }
        let counters = await alice.service.counters()
        #expect(counters.handshakeFailures == 0 && counters.badHello == 0, "\(counters)")
        #expect(recording.records.count { $0.message.contains("a protocol v1 node at 127.0.0.1") } == 1)
        #expect(await bobStillChats(alice, bob, "still bob after a v1 node"))
        await stop(alice, bob)
    }

    /// Alice and Bob share a group secret. A dialler with another secret,
    /// or none, sends a message 1 Alice cannot open: she writes nothing
    /// back (no message 2, so no static key, identity or name) and closes.
    /// A dialler with the right secret links, so the refusal is the
    /// secret's doing.
    @Test func aDiallerWithTheWrongGroupSecretGetsNoMessage2() async throws {
        let blue = try GroupSecret(fileContents: Array("blue".utf8))
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.groupSecret = blue
        let (alice, bob) = try await pair((7_051, 7_052), configuration)
        let port = await alice.service.listeningPort
        let outsiders: [(String, GroupSecret?)] = [("green", try GroupSecret(fileContents: Array("green".utf8))), ("no secret", nil)]
        for (index, (name, secret)) in outsiders.enumerated() {
            let raw = try RawPeer(connectingTo: port, seed: 7_053 + UInt64(index), "outsider", groupSecret: secret)
            try raw.sendMessage1()
            #expect(raw.sentHandshakeMessages[0].count == (secret == nil ? 32 : 48), "\(name)")
            #expect(await waitUntil { raw.isClosed }, "\(name)")
            #expect(raw.receivedBytes.isEmpty, "\(name): Alice wrote nothing back")
            #expect(await alice.service.counters().handshakeFailures == index + 1, "\(name)")
        }
        let member = try RawPeer(connectingTo: port, seed: 7_059, "member", groupSecret: blue)
        try await member.handshake()
        #expect(member.remoteHello?.senderNumber == alice.number)
        #expect(await alice.log.waitUntil { alice.log.joined(member.number) != nil })
        #expect(await alice.service.counters().handshakeFailures == 2)
        #expect(await bobStillChats(alice, bob, "still bob after the outsiders"))
        await stop(alice, bob)
    }

    /// A dialler must not send a record before the acceptor accepts its
    /// link. A record ahead of message 3 is read as message 3 and fails the
    /// handshake. A record right behind message 3, while the acceptor holds
    /// the link (it comes from a second instance of Bob, with a copy of his
    /// key, and Alice is pinging Bob's link), is refused as a frame before
    /// acceptance: the link is closed and Bob's stays.
    @Test func recordsBeforeAcceptanceAreRefused() async throws {
        let (alice, bob) = try await pair((7_061, 7_062))
        let port = await alice.service.listeningPort
        let early = try RawPeer(connectingTo: port, seed: 7_063, "mallory")
        try early.sendMessage1()
        try await early.awaitMessage2()
        let message3 = try early.message3()
        early.sendRaw(early.seal(early.frame(.publicMessage, content: "before message 3")) + message3)
        #expect(await waitUntil { early.isClosed })
        #expect(await alice.service.counters().handshakeFailures == 1)

        let copy = try RawPeer(connectingTo: port, seed: 7_062, "bob")
        try copy.sendMessage1()
        try await copy.awaitMessage2()
        copy.sendRaw(try copy.message3() + copy.seal(copy.frame(.publicMessage, content: "before acceptance")))
        #expect(await waitUntil { copy.isClosed })
        #expect(copy.frames.isEmpty, "never accepted")
        #expect(await alice.service.counters().badHello == 1)
        // The link was held: Alice pinged Bob's, and his pong refused the claim.
        #expect(await waitUntil { await alice.service.counters().identityConflicts == 1 })

        #expect(alice.log.joined(early.number) == nil)
        #expect(!alice.receivedTexts.contains("before message 3") && !alice.receivedTexts.contains("before acceptance"))
        #expect(await bobStillChats(alice, bob, "still bob after early records"))
        await stop(alice, bob)
    }
}
