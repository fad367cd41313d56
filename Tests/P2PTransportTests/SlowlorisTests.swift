import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Connections that open and then dawdle: a hello trickled byte by byte is
/// cut at the handshake deadline however busy it looks, and a crowd of 500
/// half-open connections does not slow a linked peer down.
@Suite struct SlowlorisTests {
    @Test func aHelloTrickledByteByByteIsCutAtTheDeadline() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_101, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(1_190, "snail"))
        var hello = raw.frame(.hello)
        hello.instanceId = raw.instanceId
        hello.listenPort = 9
        let bytes = Array(P2PFrameCodec.encode(hello).dropLast())
        let opened = ContinuousClock.now
        // One byte every 20 ms: always busy, never done (a hello is ~250 bytes).
        var sent = 0
        while !raw.isClosed, sent < bytes.count, ContinuousClock.now - opened < .seconds(5) {
            raw.send([bytes[sent]])
            sent += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        let lasted = ContinuousClock.now - opened
        #expect(raw.isClosed)
        #expect(sent < bytes.count)
        // handshakeTimeout is 1 s in tests; ticks and a busy host add some.
        #expect(lasted >= .milliseconds(950) && lasted < .milliseconds(4_500), "cut after \(lasted)")
        #expect(await alice.service.counters().handshakeTimeout == 1)
        #expect(alice.log.joined(raw.identity.number) == nil)
        await alice.service.stop()
    }

    @Test func fiveHundredHalfOpenConnectionsDoNotSlowALinkedPeer() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        // The crowd must stay half-open while round trips are timed, and the
        // raw peer sends nothing between the two measurements.
        configuration.handshakeTimeout = .seconds(30)
        configuration.deadPeerTimeout = .seconds(30)
        // The worst case for the node: it holds every one of them (by
        // default one address gets 32; see ConnectionStormTests).
        configuration.limits.maxPendingLinks = 600
        configuration.limits.maxPendingLinksPerAddress = 600
        configuration.limits.connectionBurstPerAddress = 600
        let alice = try await TestNode.started(1_102, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        let peer = try RawPeer(connectingTo: port, as: TestNetwork.identity(1_191, "bob"))
        peer.sendHello()
        try #require(await waitUntil { alice.log.joined(peer.identity.number) != nil })
        let baseline = RoundTrips.median(await RoundTrips.measure(peer, count: 40))

        let crowd = ConnectionCrowd(count: 500, port: port)
        // Each starts a hello and stops mid-way.
        let allIn = await waitUntil(within: .seconds(20)) { await alice.service.linkCountForTesting() == 501 }
        let (linkCount, counters) = (await alice.service.linkCountForTesting(), await alice.service.counters())
        #expect(allIn, "\(linkCount) links, \(counters)")
        crowd.send("{\"version\":1,\"type\":\"hel")
        let during = RoundTrips.median(await RoundTrips.measure(peer, count: 40))
        #expect(await alice.service.linkCountForTesting() == 501)
        #expect(crowd.closedCount == 0)

        // Within 2x of the baseline. Loopback round trips are a fraction of
        // a millisecond, below the scheduling noise of two shared cores, so
        // anything under 20 ms passes too: a node stalled by the crowd would
        // take far longer than that.
        #expect(during <= max(baseline * 2, .milliseconds(20)), "baseline \(baseline), with 500 half-open connections \(during)")
        #expect(await alice.service.counters().evictedPending == 0)
        crowd.close()
        #expect(await waitUntil { await alice.service.linkCountForTesting() == 1 })
        await alice.service.stop()
    }
}
