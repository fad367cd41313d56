import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// A linked peer sending frames as fast as it can meets its link's rate
/// limit: the node reads it only as fast as the budget allows, holds a
/// bounded amount of its input, and keeps serving the others promptly.
@Suite(.realTime) struct FloodTests {
    @Test func aFloodingPeerIsThrottledAndOthersAreNotSlowed() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.deadPeerTimeout = .seconds(30)
        configuration.limits.frameBurst = 100
        configuration.limits.framesPerSecond = 200
        let alice = try await TestNode.started(1_301, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        let flooder = try RawPeer(connectingTo: port, seed: 1_390, "flood")
        let bob = try RawPeer(connectingTo: port, seed: 1_391, "bob")
        try await flooder.handshake()
        try await bob.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(flooder.number) != nil && alice.log.joined(bob.number) != nil })
        let baseline = RoundTrips.median(await RoundTrips.measure(bob, count: 30))

        // Back-to-back public messages, each with its own id, for 2 s: about
        // 4 MB, more than loopback's socket buffers take, so the flooder
        // ends up waiting on TCP. Each is sealed as it is written, so the
        // records the node sees have no gap in their nonces.
        let started = ContinuousClock.now
        async let written = Self.flood(flooder, count: 20_000, for: .seconds(2))
        try await Task.sleep(for: .milliseconds(300))
        let during = RoundTrips.median(await RoundTrips.measure(bob, count: 30))
        let backlog = await alice.service.largestInputBacklogForTesting()
        let sent = await written
        let elapsed = ContinuousClock.now - started
        let delivered = alice.log.events.count { if case .received(_, let from) = $0 { from == flooder.number } else { false } }

        // Far more was written than the budget lets through ...
        #expect(sent > 1_000, "the flooder wrote \(sent) frames")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let allowed = Int(100 + 200 * seconds)
        #expect(delivered <= allowed + 20, "\(delivered) frames delivered in \(elapsed); the budget allows \(allowed)")
        #expect(delivered >= 100)
        #expect(await alice.service.counters().rateLimited >= 1)
        // ... the rest waits in TCP's buffers, not the node's: it holds at
        // most a few reads of the flooder's input.
        #expect(backlog <= (P2PService.readsPerWakeup + 1) * 64 * 1_024, "\(backlog) bytes held")
        // Bob's round trips stay within 2x (or under 20 ms: see SlowlorisTests).
        #expect(during <= max(baseline * 2, .milliseconds(20)), "baseline \(baseline), during the flood \(during)")
        // Nothing was lost or cut: the flooder's frames keep coming, in order.
        #expect(!flooder.isClosed)
        let texts = alice.receivedTexts.filter { $0.hasPrefix("flood ") }
        #expect(texts == (0..<texts.count).map { "flood \($0)" })
        await alice.service.stop()
    }

    /// Writes `count` public messages in a loop, as fast as the socket
    /// takes them, for `duration`; returns how many were written whole. On
    /// a thread of its own, since it blocks in poll(2) when the socket is
    /// full; the test awaits it, so the thread is the flooder's only user.
    private static func flood(_ flooder: RawPeer, count: Int, for duration: Duration) async -> Int {
        await withCheckedContinuation { continuation in
            Thread {
                let deadline = ContinuousClock.now + duration
                var written = 0
                while ContinuousClock.now < deadline, written < count {
                    let record = flooder.seal(flooder.frame(.publicMessage, content: "flood \(written)"))
                    guard flooder.writeAll(record, until: deadline) else { break }
                    written += 1
                }
                continuation.resume(returning: written)
            }.start()
        }
    }
}
