import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// The service looks at its timers every `tickInterval` while something
/// with a short deadline is under way, and otherwise sleeps until the next
/// deadline (`WakePlan`): an idle node no longer wakes 4 (before that 20)
/// times a second.
@Suite(.realTime) struct TickPlanTests {
    @Test func theBusyIntervalFollowsTheTimers() {
        var configuration = P2PConfiguration()
        #expect(configuration.tickInterval == .milliseconds(50))
        configuration.beaconInterval = .milliseconds(200)
        #expect(configuration.tickInterval == .milliseconds(20))
        configuration.beaconInterval = .milliseconds(40)
        #expect(configuration.tickInterval == .milliseconds(10))
    }

    /// Two linked services with the CLI's intervals (beacons and keepalives
    /// every 2 s), on a manual clock stepped from one timer's deadline to
    /// the next for a minute: each wakes for its beacon turns and the
    /// dialler for its keepalives (the acceptor's pongs keep its own
    /// quiet), about 30 and 60 times, where a 250 ms tick woke 240 times.
    /// The link stays up all along.
    @Test func anIdleLinkedPairWakesOnlyForBeaconsAndKeepalives() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.beaconInterval = .seconds(2)
        configuration.keepaliveInterval = .seconds(2)
        configuration.deadPeerTimeout = .seconds(6)
        configuration.handshakeTimeout = .seconds(3)
        let clock = ManualClock()
        let (first, second) = TestNetwork.orderedSeeds(from: 71, lowerFirst: true)
        let alice = try await TestNode.started(first, "alice", configuration: configuration, clock: clock)
        let bob = try await TestNode.started(second, "bob", configuration: configuration, clock: clock)
        try await alice.log.first("alice links bob") { if case .peerJoined(let info) = $0, info.number == bob.number { true } else { nil } }
        try await bob.log.first("bob links alice") { if case .peerJoined(let info) = $0, info.number == alice.number { true } else { nil } }
        // Past the start bursts and the first turns.
        try await Self.run(clock, for: .seconds(10), pair: (alice, bob))
        let before = (await alice.service.counters().timerWakes, await bob.service.counters().timerWakes)
        try await Self.run(clock, for: .seconds(60), pair: (alice, bob))
        let wakes = (await alice.service.counters().timerWakes - before.0, await bob.service.counters().timerWakes - before.1)
        #expect(wakes.0 <= 70 && wakes.1 <= 70, "wake-ups in a minute: alice \(wakes.0), bob \(wakes.1)")
        #expect(wakes.0 >= 25 && wakes.1 >= 25, "the beacon turns alone are 30 a minute: alice \(wakes.0), bob \(wakes.1)")
        #expect(!alice.log.contains(.peerLeft(bob.number, .timedOut)) && !bob.log.contains(.peerLeft(alice.number, .timedOut)))
        #expect(await alice.service.connectedPeers().map(\.number) == [bob.number])
        for node in [alice, bob] { await node.service.stop() }
    }

    /// Moves `clock` from one sleeper's deadline to the next for `span`,
    /// letting both services' timers run and park again, and before time
    /// moves on waits until each side has read every frame the other wrote
    /// (pings and pongs on real sockets): on a loaded machine a pong not
    /// yet read when the clock jumps would count as the peer's silence.
    static func run(_ clock: ManualClock, for span: Duration, pair: (TestNode, TestNode)) async throws {
        let end = clock.uptime() + span
        while let next = clock.nextDeadline, next <= end {
            // A parked sleeper's deadline is always ahead of uptime; the
            // woken timers re-arm before this returns.
            try #require(await clock.advance(by: next - clock.uptime(), thenWaitFor: 2))
            try #require(await waitUntil("every frame written is read") {
                let (a, b) = (await pair.0.service.counters(), await pair.1.service.counters())
                return a.framesSent == b.framesRead && b.framesSent == a.framesRead
            })
        }
        clock.advance(by: end - clock.uptime())
        try #require(await clock.waitForSleepers(2))
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
