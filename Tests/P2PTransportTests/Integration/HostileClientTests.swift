import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Raw v2 clients that break the protocol are cut off; a real peer linked
/// to the same service keeps exchanging frames meanwhile.
@Suite(.realTime) struct HostileClientTests {
    /// A service with one well-behaved peer already linked.
    private func pair() async throws -> (TestNode, TestNode) {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(11, "alice", configuration: configuration)
        let bob = try await TestNode.started(22, "bob", configuration: configuration)
        let linked = await waitUntil { await fullMesh([alice, bob]) }
        // This timed out once with four busy loops beside the suite: the
        // counters say whether handshakes or dead-peer deadlines expired.
        let counters = linked ? "" : "alice \(await alice.service.counters()); bob \(await bob.service.counters())"
        try #require(linked, "\(counters)")
        return (alice, bob)
    }

    /// Bob's frames still reach Alice.
    private func stillExchanging(_ alice: TestNode, _ bob: TestNode, _ text: String) async -> Bool {
        guard await bob.service.broadcast(bob.publicMessage(text)) == 1 else { return false }
        return await alice.log.waitUntil { alice.receivedTexts.contains(text) }
    }

    private func stop(_ nodes: TestNode...) async {
        for node in nodes { await node.service.stop() }
    }

    /// v1's "garbage before the hello": in v2 the garbage is where a
    /// handshake message belongs. Each kind is cut at once and counted.
    @Test func garbageInPlaceOfAHandshakeMessageIsCutOff() async throws {
        let (alice, bob) = try await pair()
        let port = await alice.service.listeningPort
        let garbage: [(String, (RawPeer) async throws -> Void)] = [
            ("a length under 16 bytes", { $0.sendRaw([0x00, 0x05] + Array("hello".utf8)) }),
            // Message 1 of XX is an ephemeral key alone; more is a payload.
            ("64 random bytes as message 1", { $0.sendFramed((0..<64).map { _ in .random(in: 0...255) }) }),
            ("random bytes as message 3", { raw in
                try raw.sendMessage1()
                try await raw.awaitMessage2()
                raw.sendFramed((0..<200).map { _ in .random(in: 0...255) })
            }),
        ]
        for (index, (name, send)) in garbage.enumerated() {
            let raw = try RawPeer(connectingTo: port, seed: 900 + UInt64(index), "mallory")
            try await send(raw)
            #expect(await waitUntil { raw.isClosed }, "\(name)")
            #expect(await alice.service.counters().handshakeFailures == index + 1, "\(name)")
            #expect(alice.log.joined(raw.number) == nil, "\(name)")
        }
        #expect(await alice.service.counters().badHello == 0)
        #expect(await stillExchanging(alice, bob, "after garbage"))
        await stop(alice, bob)
    }

    /// v1's "wrong sender number after the hello": a record, opened fine,
    /// whose frame claims another sender than the link's verified key.
    @Test func aRecordClaimingAnotherSenderIsCutOff() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 901, "mallory")
        try await raw.handshake()
        #expect(raw.remoteHello?.senderNumber == alice.number)
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        raw.send(raw.frame(.publicMessage, content: "I am bob", sender: bob.number))
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(raw.number, .disconnected)) })
        #expect(await alice.service.counters().spoofed == 1)
        #expect(!alice.receivedTexts.contains("I am bob"))
        #expect(await stillExchanging(alice, bob, "after spoof"))
        await stop(alice, bob)
    }

    /// v1's "unfinished hello": a handshake that stops after message 1,
    /// and an HTTP request whose first two bytes read as a length of 18245
    /// that never arrives. Both are closed at the handshake deadline.
    @Test func anUnfinishedHandshakeTimesOut() async throws {
        let (alice, bob) = try await pair()
        let port = await alice.service.listeningPort
        let stalled = try RawPeer(connectingTo: port, seed: 902, "mallory")
        try stalled.sendMessage1()
        try await stalled.awaitMessage2()
        let http = try RawPeer(connectingTo: port, seed: 907, "mallory")
        http.sendRaw("GET / HTTP/1.1\r\nHost: lanchat\r\n\r\n")
        // At the handshake deadline (TestNetwork: 2 s).
        #expect(await waitUntil { stalled.isClosed && http.isClosed })
        let counters = await alice.service.counters()
        #expect(counters.handshakeTimeout == 2)
        #expect(counters.handshakeFailures == 0)
        #expect(http.receivedBytes.isEmpty, "an HTTP client learns nothing")
        #expect(await stillExchanging(alice, bob, "after a stalled handshake"))
        await stop(alice, bob)
    }

    /// v1's "overlong line": a 2-byte length cannot exceed the 65535-byte
    /// record limit, so the largest record is carried (its bad content is
    /// one tolerated malformed frame) and the out-of-bounds length left, one
    /// too short to hold a tag, closes the link.
    @Test func aLengthPrefixOutOfBoundsClosesTheLink() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 903, "mallory")
        try await raw.handshake()
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        let largest = raw.seal(plaintext: [UInt8](repeating: UInt8(ascii: "a"), count: 65_535 - 16))
        #expect(largest.count == 2 + 65_535)
        raw.sendRaw(largest)
        raw.send(raw.frame(.publicMessage, content: "after the largest record"))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("after the largest record") })
        #expect(await alice.service.counters().malformed == 1)
        raw.sendRaw([0x00, 0x0F] + [UInt8](repeating: 0, count: 15))
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(raw.number, .disconnected)) })
        #expect(await alice.service.counters().malformed == 2)
        #expect(await stillExchanging(alice, bob, "after a bad length"))
        await stop(alice, bob)
    }

    @Test func aFewMalformedFramesAreToleratedThenTheLinkIsCut() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 904, "mallory")
        try await raw.handshake()
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        for _ in 0..<PeerLink.malformedLimit { raw.sendRecord("{not json") }
        raw.send(raw.frame(.publicMessage, content: "still here"))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("still here") })
        #expect(!raw.isClosed)
        raw.sendRecord("[1,2,3]")
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().malformed == PeerLink.malformedLimit + 1)
        #expect(await alice.service.counters().recordFailures == 0)
        #expect(await stillExchanging(alice, bob, "after malformed frames"))
        await stop(alice, bob)
    }

    @Test func linkControlIsHandledAndUnknownTypesAreDelivered() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 905, "dave")
        try await raw.handshake()
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        let ping = raw.frame(.ping)
        raw.send(ping)
        #expect(await waitUntil { raw.frames.contains { $0.type == .pong && $0.refId == ping.messageId } })
        raw.send(raw.hello())
        raw.send(raw.frame(.unknown("sticker"), content: "🦄"))
        #expect(await alice.log.waitUntil { alice.log.events.contains { if case .received(let p, _) = $0 { p.type == .unknown("sticker") } else { false } } })
        let counters = await alice.service.counters()
        #expect(counters.lateHello == 1)
        #expect(counters.unknownType == 1)
        // Only the sticker was delivered: hello, ping are the transport's.
        let delivered = alice.log.events.filter { if case .received(_, let from) = $0 { from == raw.number } else { false } }
        #expect(delivered.count == 1)
        raw.send(raw.frame(.leave))
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(raw.number, .left)) })
        #expect(await waitUntil { raw.isClosed })
        await stop(alice, bob)
    }

    @Test func aPeerThatStopsReadingIsCutAndOthersAreNotSlowed() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.maxQueuedBytesPerLink = 256 * 1024
        // The raw client sends no keepalives; only the output rules may cut it.
        configuration.deadPeerTimeout = .seconds(30)
        let alice = try await TestNode.started(31, "alice", configuration: configuration)
        let bob = try await TestNode.started(32, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, bob]) })
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 906, "sloth")
        try await raw.handshake()
        #expect(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        // The raw client never reads again (nothing polls it). Up to ~24 MiB
        // outruns loopback's socket buffers and then the 256 KiB queue. Bob
        // keeps up: each frame is sent once he has the previous one.
        let big = String(repeating: "x", count: 60_000)
        var sent = 0
        for index in 0..<400 where !alice.log.contains(.peerLeft(raw.number, .timedOut)) {
            var message = alice.publicMessage(big)
            message.content = "\(index) " + big
            sent = await alice.service.broadcast(message)
            try #require(await bob.log.waitUntil { bob.receivedTexts.count == index + 1 })
        }
        #expect(sent == 1)
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(raw.number, .timedOut)) })
        let counters = await alice.service.counters()
        #expect(counters.queueOverflow + counters.writeTimeout == 1)
        #expect(await stillExchanging(bob, alice, "done"))
        await alice.service.stop()
        await bob.service.stop()
    }
}
