import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Raw TCP clients that break the protocol are cut off; a real peer linked
/// to the same service keeps exchanging frames meanwhile.
@Suite struct HostileClientTests {
    /// A service with one well-behaved peer already linked.
    private func pair() async throws -> (TestNode, TestNode) {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(11, "alice", configuration: configuration)
        let bob = try await TestNode.started(22, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, bob]) })
        return (alice, bob)
    }

    /// Bob's frames still reach Alice.
    private func stillExchanging(_ alice: TestNode, _ bob: TestNode, _ text: String) async -> Bool {
        guard await bob.service.broadcast(bob.publicMessage(text)) == 1 else { return false }
        return await waitUntil { alice.receivedTexts.contains(text) }
    }

    private func stop(_ nodes: TestNode...) async {
        for node in nodes { await node.service.stop() }
    }

    @Test func garbageBeforeTheHelloIsCutOff() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(900, "mallory"))
        raw.send("GET / HTTP/1.1\r\n\r\n")
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().badHello == 1)
        #expect(await stillExchanging(alice, bob, "after garbage"))
        await stop(alice, bob)
    }

    @Test func wrongSenderNumberAfterTheHelloIsCutOff() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(901, "mallory"))
        raw.sendHello()
        #expect(await waitUntil { raw.frames.first?.type == .hello })
        #expect(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        raw.send(raw.frame(.publicMessage, content: "I am bob", sender: bob.number))
        #expect(await waitUntil { raw.isClosed })
        #expect(await waitUntil { alice.log.contains(.peerLeft(raw.identity.number, .disconnected)) })
        #expect(await alice.service.counters().spoofed == 1)
        #expect(!alice.receivedTexts.contains("I am bob"))
        #expect(await stillExchanging(alice, bob, "after spoof"))
        await stop(alice, bob)
    }

    @Test func unfinishedHelloTimesOut() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(902, "mallory"))
        raw.send("{\"type\":\"hel")
        // handshakeTimeout is 1 s in tests.
        #expect(await waitUntil(within: .seconds(3)) { raw.isClosed })
        #expect(await alice.service.counters().handshakeTimeout == 1)
        #expect(await stillExchanging(alice, bob, "after a stalled hello"))
        await stop(alice, bob)
    }

    @Test func overlongLineClosesTheLink() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(903, "mallory"))
        raw.sendHello()
        #expect(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        raw.send([UInt8](repeating: UInt8(ascii: "a"), count: P2PFrameCodec.maxLineLength + 1))
        #expect(await waitUntil { raw.isClosed })
        #expect(await waitUntil { alice.log.contains(.peerLeft(raw.identity.number, .disconnected)) })
        #expect(await alice.service.counters().overlong == 1)
        #expect(await stillExchanging(alice, bob, "after an overlong line"))
        await stop(alice, bob)
    }

    @Test func aFewMalformedLinesAreToleratedThenTheLinkIsCut() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(904, "mallory"))
        raw.sendHello()
        #expect(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        for _ in 0..<PeerLink.malformedLimit { raw.send("{not json\n") }
        raw.send(raw.frame(.publicMessage, content: "still here"))
        #expect(await waitUntil { alice.receivedTexts.contains("still here") })
        #expect(!raw.isClosed)
        raw.send("[1,2,3]\n")
        #expect(await waitUntil { raw.isClosed })
        #expect(await alice.service.counters().malformed == PeerLink.malformedLimit + 1)
        #expect(await stillExchanging(alice, bob, "after malformed lines"))
        await stop(alice, bob)
    }

    @Test func linkControlIsHandledAndUnknownTypesAreDelivered() async throws {
        let (alice, bob) = try await pair()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(905, "dave"))
        raw.sendHello()
        #expect(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        let ping = raw.frame(.ping)
        raw.send(ping)
        #expect(await waitUntil { raw.frames.contains { $0.type == .pong && $0.refId == ping.messageId } })
        raw.sendHello()
        raw.send(raw.frame(.unknown("sticker"), content: "🦄"))
        #expect(await waitUntil { alice.log.events.contains { if case .received(let p, _) = $0 { p.type == .unknown("sticker") } else { false } } })
        let counters = await alice.service.counters()
        #expect(counters.lateHello == 1)
        #expect(counters.unknownType == 1)
        // Only the sticker was delivered: hello, ping are the transport's.
        let delivered = alice.log.events.filter { if case .received(_, let from) = $0 { from == raw.identity.number } else { false } }
        #expect(delivered.count == 1)
        raw.send(raw.frame(.leave))
        #expect(await waitUntil { alice.log.contains(.peerLeft(raw.identity.number, .left)) })
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
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(906, "sloth"))
        raw.sendHello()
        #expect(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        // The raw client never reads again. Up to ~24 MiB outruns loopback's
        // socket buffers and then the 256 KiB queue. Bob keeps up: each
        // frame is sent once he has the previous one.
        let big = String(repeating: "x", count: 60_000)
        var sent = 0
        for index in 0..<400 where !alice.log.contains(.peerLeft(raw.identity.number, .timedOut)) {
            var message = alice.publicMessage(big)
            message.content = "\(index) " + big
            sent = await alice.service.broadcast(message)
            try #require(await waitUntil { bob.receivedTexts.count == index + 1 })
        }
        #expect(sent == 1)
        #expect(await waitUntil { alice.log.contains(.peerLeft(raw.identity.number, .timedOut)) })
        let counters = await alice.service.counters()
        #expect(counters.queueOverflow + counters.writeTimeout == 1)
        #expect(await stillExchanging(bob, alice, "done"))
        await alice.service.stop()
        await bob.service.stop()
    }
}
