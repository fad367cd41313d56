import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Discovery does no work twice: a newcomer this node dials gets no answer
/// beacon, and no fallback dial goes out while a handshake from the
/// announced address is under way.
@Suite(.realTime) struct DialRuleTests {
    private func configuration(_ discoveryPort: Int) -> P2PConfiguration {
        var configuration = TestNetwork.configuration(discoveryPort: discoveryPort)
        // Only the start burst of this node's own beacons; announcements
        // stay without the forger repeating its beacon.
        configuration.beaconInterval = .seconds(10)
        configuration.deadPeerTimeout = .seconds(10)
        configuration.keepaliveInterval = .seconds(2)
        return configuration
    }

    /// A number that sorts below (or above) `number`, from seeds after `start`.
    private func number(_ below: Bool, than number: NodeNumber, from start: UInt64) -> NodeNumber {
        var seed = start
        while (TestNetwork.key(seed).nodeNumber < number) != below { seed += 1 }
        return TestNetwork.key(seed).nodeNumber
    }

    private func beacon(_ number: NodeNumber, port: Int, instance: String) -> DiscoveryBeacon {
        DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: number, nickname: "n\(number.shortTag)"),
                        tcpPort: port, instanceId: instance)
    }

    @Test func onlyANewcomerThatMustDialIsAnswered() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        let alice = try await TestNode.started(7_301, "alice", configuration: configuration(discoveryPort))
        #expect(await waitUntil { await alice.service.counters().beaconsSent == P2PService.startBurst })
        let target = try HoldingListener(address: 0x7F00_0002)
        let forger = BeaconSender(discoveryPort: discoveryPort, source: 0x7F00_0002)
        // Higher: Alice dials it, and sends no beacon for it. The answer
        // would go out in the same turn as the dial, before it.
        forger.send(beacon(number(false, than: alice.number, from: 7_310), port: target.port, instance: "higher-1"))
        #expect(await waitUntil { target.acceptedCount == 1 })
        #expect(await alice.service.counters().beaconsSent == P2PService.startBurst)
        // Lower: it must dial Alice, so Alice answers at once.
        forger.send(beacon(number(true, than: alice.number, from: 7_330), port: target.port, instance: "lower-1"))
        #expect(await waitUntil { await alice.service.counters().beaconsSent == P2PService.startBurst + 1 })
        target.close()
        await alice.service.stop()
    }

    /// The lower number announced at 127.0.0.1 has not linked after the
    /// fallback delay, but a connection from 127.0.0.1 is in its handshake
    /// (a peer's number shows only at message 3, so it may be that one):
    /// Alice waits. Once that handshake times out, she dials. On the manual
    /// clock: each step is exact, however busy the machine.
    @Test func noFallbackDialWhileAHandshakeFromThatAddressIsUnderWay() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        var configuration = configuration(discoveryPort)
        configuration.handshakeTimeout = .milliseconds(800) // the fallback delay too
        let tick = configuration.tickInterval
        let clock = ManualClock()
        let alice = try await TestNode.started(7_351, "alice", configuration: configuration, clock: clock)
        let target = try HoldingListener(address: 0x7F00_0001)
        let forger = BeaconSender(discoveryPort: discoveryPort)
        forger.send(beacon(number(true, than: alice.number, from: 7_360), port: target.port, instance: "lower-2"))
        // Heard at uptime 0 (a lower number: Alice waits for it to dial).
        try #require(await waitUntil { await alice.service.announcementCountForTesting() == 1 })
        // Half the fallback delay later, a handshake from 127.0.0.1 that stalls after message 1.
        #expect(await clock.advance(by: .milliseconds(400), thenWaitFor: 1))
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 7_390, "stalled")
        raw.sendRaw(try raw.message1())
        try #require(await waitUntil { await alice.service.linkCountForTesting(from: 0x7F00_0001) == 1 })
        // Her message 2 proves message 1 was read at uptime 0.4 s (the
        // handshake's deadline counts from it), before the clock moves on.
        _ = try await raw.awaitMessage2()
        // Past the fallback delay: without the rule Alice would dial now.
        #expect(await clock.advance(by: .milliseconds(400) + tick, thenWaitFor: 1))
        #expect(await alice.service.pendingDialCountForTesting() == 0)
        // The stalled handshake's own deadline, 800 ms after its message 1: still held.
        #expect(await clock.advance(by: .milliseconds(400) - tick, thenWaitFor: 1))
        #expect(await alice.service.counters().handshakeTimeout == 0)
        #expect(await alice.service.pendingDialCountForTesting() == 0)
        // One tick past it the handshake is cut; the tick after, she dials.
        #expect(await clock.advance(by: tick, thenWaitFor: 1))
        #expect(await alice.service.counters().handshakeTimeout == 1)
        #expect(await clock.advance(by: tick, thenWaitFor: 1))
        #expect(await alice.service.pendingDialCountForTesting() == 1)
        #expect(await waitUntil { target.acceptedCount >= 1 })
        withExtendedLifetime(raw) {}
        target.close()
        await alice.service.stop()
    }
}
