import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// The service looks at its timers every `tickInterval` while something
/// with a short deadline is under way, and every `idleTickInterval` when
/// nothing is: an idle node no longer wakes 20 times a second.
@Suite(.realTime) struct TickPlanTests {
    @Test func theIdleIntervalFollowsTheTimers() {
        var configuration = P2PConfiguration()
        #expect(configuration.tickInterval == .milliseconds(50))
        #expect(configuration.idleTickInterval == .milliseconds(250))
        configuration.beaconInterval = .milliseconds(200)
        #expect(configuration.tickInterval == .milliseconds(20))
        #expect(configuration.idleTickInterval == .milliseconds(25))
        configuration.beaconInterval = .milliseconds(40)
        #expect(configuration.idleTickInterval == configuration.tickInterval, "never below the busy interval")
    }

    /// On a manual clock the service's one timer task sleeps until the
    /// test advances it: the start burst's beacons go out at the first
    /// tick at or past their due time, not a tick before, however long the
    /// test (or a busy machine) takes in between.
    @Test func aServiceOnAManualClockTicksOnlyWhenTheTestAdvancesIt() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let clock = ManualClock()
        let alice = try await TestNode.started(113, "alice", configuration: configuration, clock: clock)
        #expect(await clock.waitForSleepers(1), "the ticker waits on the clock")
        #expect(await alice.service.counters().beaconsSent == 1, "the start tick's beacon")
        let gap = min(P2PService.burstGap, configuration.beaconInterval / 2)
        let tick = configuration.tickInterval
        // Just short of the second burst beacon: the ticks that run send nothing.
        var elapsed = Duration.zero
        while elapsed + tick < gap {
            #expect(await clock.advance(by: tick, thenWaitFor: 1))
            elapsed += tick
        }
        #expect(await alice.service.counters().beaconsSent == 1)
        // The first tick at or past its due time sends it; then the third, a gap later.
        #expect(await clock.advance(by: tick, thenWaitFor: 1))
        #expect(await alice.service.counters().beaconsSent == 2)
        for _ in 0..<Int((gap / tick).rounded(.up)) {
            #expect(await clock.advance(by: tick, thenWaitFor: 1))
        }
        #expect(await alice.service.counters().beaconsSent == 3)
        await alice.service.stop()
        #expect(clock.sleeperCount == 0, "stop cancels the ticker's sleep")
    }

    @Test func linkedNodesTickSlowlyUntilAHandshakeBegins() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(111, "alice", configuration: configuration)
        // The start burst is short work; alone afterwards, nothing is due soon.
        #expect(await waitUntil { await !alice.service.hasShortDeadlines })
        let bob = try await TestNode.started(222, "bob", configuration: configuration)
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        #expect(await waitUntil { await !alice.service.hasShortDeadlines })
        #expect(await waitUntil { await !bob.service.hasShortDeadlines })
        // A connection that has not said hello is a handshake with a deadline.
        let crowd = ConnectionCrowd(count: 1, port: await alice.service.listeningPort)
        #expect(await waitUntil { await alice.service.hasShortDeadlines })
        crowd.close()
        #expect(await waitUntil { await !alice.service.hasShortDeadlines })
        for node in [alice, bob] { await node.service.stop() }
    }

    /// Without broadcast (static peers only) there is no start burst to
    /// count down, and a static peer named by host name that dialled us
    /// first is linked: both sides settle to the idle tick.
    @Test func staticPeersSettleWithoutBroadcast() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.broadcastAddresses = []
        var aliceConfiguration = configuration
        aliceConfiguration.listenPort = TestNetwork.listenPort()
        var bobConfiguration = configuration
        bobConfiguration.listenPort = TestNetwork.listenPort()
        bobConfiguration.staticPeers = ["127.0.0.1:\(aliceConfiguration.listenPort)"]
        aliceConfiguration.staticPeers = ["localhost:\(bobConfiguration.listenPort)"]
        // Both nodes' logs go into the failure message: this wait timed out
        // once in a parallel run under load, and never alone.
        let trace = TimedTrace()
        let alice = TestNode(131, "alice", configuration: aliceConfiguration, logger: trace.logger("alice"))
        try await alice.service.start()
        let bob = TestNode(132, "bob", configuration: bobConfiguration, logger: trace.logger("bob"))
        try await bob.service.start()
        #expect(await waitUntil { await fullMesh([alice, bob]) }, "\(trace.text)")
        #expect(await waitUntil { await !alice.service.hasShortDeadlines })
        #expect(await waitUntil { await !bob.service.hasShortDeadlines })
        for node in [alice, bob] { await node.service.stop() }
    }
}
