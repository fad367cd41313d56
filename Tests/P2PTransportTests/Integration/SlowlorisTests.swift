import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Connections that open and then dawdle: a handshake trickled byte by byte is
/// cut at the handshake deadline however busy it looks, and a crowd of 500
/// half-open connections does not slow a linked peer down.
@Suite(.realTime) struct SlowlorisTests {
    /// v1 trickled its hello line; in v2 the hello rides in message 3, so
    /// the whole handshake is trickled: message 1, then (once message 2 is
    /// in) message 3, one byte every 20 ms of a manual clock, which moves
    /// only between bytes: the cut comes at the deadline the lifecycle
    /// says, however busy the machine.
    @Test func aHandshakeTrickledByteByByteIsCutAtTheDeadline() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let clock = ManualClock()
        let alice = try await TestNode.started(1_101, "alice", configuration: configuration, clock: clock)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 1_190, "snail")
        try #require(await waitUntil { await alice.service.linkCountForTesting() == 1 })
        var bytes = try raw.message1()
        var wroteMessage3 = false
        let step = Duration.milliseconds(20)
        let deadline = configuration.handshakeTimeout
        // Always busy, never done (message 1 is 34 bytes, message 3 ~400).
        var sent = 0
        while await alice.service.counters().handshakeTimeout == 0, clock.uptime() < deadline * 3 {
            if sent < bytes.count {
                raw.sendRaw([bytes[sent]])
                sent += 1
            } else if !wroteMessage3, sent == bytes.count {
                // Message 1 is all in: Alice answers with message 2.
                try await raw.awaitMessage2()
                bytes += try raw.message3()
                wroteMessage3 = true
                continue
            }
            #expect(await clock.advance(by: step, thenWaitFor: 1))
        }
        let lasted = clock.uptime()
        #expect(await waitUntil { raw.isClosed })
        #expect(!(wroteMessage3 && sent == bytes.count), "the handshake was never all sent")
        // The last complete message (message 1, 34 steps in) moved the
        // handshake on; the cut is one deadline after it, give or take the
        // step in which Alice read its last byte and the tick that saw it.
        let message1Done = step * 34
        #expect(lasted > deadline && lasted <= message1Done + deadline + step * 2 + configuration.tickInterval, "cut after \(lasted)")
        #expect(await alice.service.counters().handshakeTimeout == 1)
        #expect(alice.log.joined(raw.number) == nil)
        await alice.service.stop()
    }

    @Test func fiveHundredHalfOpenConnectionsDoNotSlowALinkedPeer() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        // The crowd must stay half-open while round trips are timed, and the
        // raw peer sends nothing between the two measurements.
        configuration.handshakeTimeout = .seconds(30)
        configuration.deadPeerTimeout = .seconds(30)
        // The worst case for the node: it holds every one of them (by
        // default loopback gets 128, a LAN address 32; see ConnectionStormTests).
        configuration.limits.maxPendingLinks = 600
        configuration.limits.maxPendingLinksPerLoopbackAddress = 600
        configuration.limits.connectionBurstPerAddress = 600
        let alice = try await TestNode.started(1_102, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        let peer = try RawPeer(connectingTo: port, seed: 1_191, "bob")
        try await peer.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(peer.number) != nil })
        let baseline = RoundTrips.median(await RoundTrips.measure(peer, count: 40))

        let crowd = ConnectionCrowd(count: 500, port: port)
        // Each starts a handshake and stops mid-way.
        let allIn = await waitUntil(within: .seconds(20)) { await alice.service.linkCountForTesting() == 501 }
        let (linkCount, counters) = (await alice.service.linkCountForTesting(), await alice.service.counters())
        #expect(allIn, "\(linkCount) links, \(counters)")
        // Half of message 1: a length of 32, then 16 of its bytes.
        crowd.send([0x00, 0x20] + [UInt8](repeating: 0x42, count: 16))
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
