import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Leaving, crashing, hanging and restarting, as a linked peer sees it.
@Suite(.realTime) struct LifecycleTests {
    private func linkedPair(_ configuration: P2PConfiguration, numbers: (UInt64, UInt64) = (41, 42)) async throws -> (TestNode, TestNode) {
        let alice = try await TestNode.started(numbers.0, "alice", configuration: configuration)
        let bob = try await TestNode.started(numbers.1, "bob", configuration: configuration)
        try #require(await waitUntil { await fullMesh([alice, bob]) })
        return (alice, bob)
    }

    /// Two services on one manual clock, linked. With `lowerFirst` the first
    /// started has the lower number and dials as soon as it hears the
    /// other's start beacon, so they link before the clock moves; else the
    /// clock steps through the first one's start burst until the other
    /// hears it and dials. Their timers run only as the test advances `clock`.
    private func linkedPair(_ configuration: P2PConfiguration, on clock: ManualClock, from seed: UInt64,
                            lowerFirst: Bool = true) async throws -> (TestNode, TestNode) {
        let (first, second) = TestNetwork.orderedSeeds(from: seed, lowerFirst: lowerFirst)
        let alice = try await TestNode.started(first, "alice", configuration: configuration, clock: clock)
        let bob = try await TestNode.started(second, "bob", configuration: configuration, clock: clock)
        if lowerFirst {
            try await alice.log.first("alice links bob") { if case .peerJoined(let info) = $0, info.number == bob.number { true } else { nil } }
            try await bob.log.first("bob links alice") { if case .peerJoined(let info) = $0, info.number == alice.number { true } else { nil } }
            #expect(clock.uptime() == .zero, "linked before any timer ran")
        } else {
            let linked = try await Self.advance(clock, by: P2PService.burstGap, timers: 2, untilBelow: configuration.handshakeTimeout) {
                alice.log.joined(bob.number) != nil && bob.log.joined(alice.number) != nil
            }
            try #require(linked, "linked within the start burst")
        }
        return (alice, bob)
    }

    /// Advances `clock` a `step` at a time (each time letting the `timers`
    /// services tick and park again), until `condition` holds; false once
    /// uptime reaches `limit`. Between steps it gives the sockets a moment
    /// (a wait on the log's events, not an assertion), so manual time does
    /// not run far ahead of the handshakes the last tick began.
    static func advance(_ clock: ManualClock, by step: Duration, timers: Int, untilBelow limit: Duration,
                        _ condition: @escaping @Sendable () -> Bool) async throws -> Bool {
        while true {
            if condition() { return true }
            if await waitUntil("the step's work", within: .milliseconds(50), { condition() }) { return true }
            guard clock.uptime() + step < limit else { return false }
            try #require(await clock.advance(by: step, thenWaitFor: timers))
        }
    }

    @Test func cleanStopIsSeenAsLeftAtOnce() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        // The clock never moves: "at once" cannot be a deadline's doing.
        let clock = ManualClock()
        let (alice, bob) = try await linkedPair(configuration, on: clock, from: 41)
        await bob.service.stop()
        try await alice.log.first("bob's leave") { $0 == .peerLeft(bob.number, .left) ? true : nil }
        #expect(clock.uptime() == .zero)
        #expect(await alice.service.connectedPeers().isEmpty)
        // Bob's stream finished; nothing after stop.
        #expect(await bob.service.send(bob.publicMessage("late"), to: alice.number) == false)
        // Alice no longer dials him, even if a late beacon was in flight.
        #expect(await alice.service.isAnnouncedForTesting(bob.number) == false)
        await alice.service.stop()
    }

    /// A dialler that has sent message 3 is about to count the link up;
    /// a stop that comes before the acceptor has read it must still say leave.
    @Test func aStopBeforeMessage3IsReadStillSaysLeave() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.deadPeerTimeout = .seconds(60)
        let alice = try await TestNode.started(41, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 903, "mallory")
        try raw.sendMessage1()
        try await raw.awaitMessage2()
        // Alice reads nothing more on her own: message 3 waits in her socket.
        await alice.service.freezeForTesting()
        try raw.sendMessage3()
        await alice.service.stop()
        #expect(await waitUntil { raw.isClosed })
        #expect(raw.frames.contains { $0.type == .leave })
    }

    /// The mirror: the acceptor counts our dial as up once it has sent its
    /// first record. A stop before this end has read that record must say
    /// leave there too, not reset the connection (alice's SIGTERM right
    /// after bob saw her join read as a crash).
    @Test func aStopBeforeTheAcceptanceIsReadStillSaysLeave() async throws {
        let listener = try RawListener()
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.deadPeerTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(15)
        let alice = try await TestNode.started(41, "alice", configuration: configuration)
        await alice.service.dialForTesting(port: listener.port)
        let raw = try await RawPeer.accepted(on: listener, key: TestNetwork.key(904), nickname: "mallory")
        try await raw.awaitMessage1()
        try raw.sendMessage2()
        try await raw.awaitMessage3()
        // Alice reads nothing more on her own: the acceptance waits in her socket.
        await alice.service.freezeForTesting()
        raw.send(raw.frame(.ping))
        await alice.service.stop()
        #expect(await waitUntil { raw.isClosed })
        #expect(raw.frames.contains { $0.type == .leave })
    }

    /// A peer that said leave and closed while this node was still writing
    /// to it left: the write that fails on its reset does not make it a
    /// failure, the leave frame waiting in the socket is read first.
    @Test func aLeaveBehindAFailedWriteIsStillALeave() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.deadPeerTimeout = .seconds(60)
        let alice = try await TestNode.started(41, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 905, "mallory")
        try await raw.handshake()
        try await alice.log.first("mallory linked") { if case .peerJoined(let info) = $0, info.number == raw.number { true } else { nil } }
        // Alice reads nothing on her own now: the leave waits in her socket.
        await alice.service.freezeForTesting()
        raw.send(raw.frame(.leave))
        raw.close()
        // Alice writes on; the reset to one write makes a later one fail.
        let failed = await waitUntil("a write to mallory fails") {
            await alice.service.writeForTesting(alice.publicMessage("still there?"), to: raw.number) == false
        }
        try #require(failed)
        await alice.service.readLinksForTesting()
        try await alice.log.first("mallory's leave") { if case .peerLeft(let number, let reason) = $0, number == raw.number { reason } else { nil } }
        #expect(alice.log.contains(.peerLeft(raw.number, .left)))
        #expect(!alice.log.contains(.peerLeft(raw.number, .timedOut)))
        await alice.service.stop()
    }

    @Test func crashIsSeenWithinTheDeadPeerTimeout() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let (alice, bob) = try await linkedPair(configuration)
        await bob.service.crashForTesting()
        // Slack for a busy machine: the reason says the dead-peer check saw it.
        #expect(await waitUntil(within: configuration.deadPeerTimeout + .seconds(3)) { alice.log.contains(.peerLeft(bob.number, .timedOut)) })
        await alice.service.stop()
    }

    /// On the manual clock: a hung peer is dropped exactly once nothing
    /// came from it for the dead-peer timeout, not a tick before, however
    /// busy the machine.
    @Test func hungPeerIsSeenThroughKeepalives() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let clock = ManualClock()
        let (alice, bob) = try await linkedPair(configuration, on: clock, from: 43)
        await bob.service.freezeForTesting()
        // Alice's ticker is the one sleeper left (Bob's stopped with him).
        #expect(await clock.waitForSleepers(1))
        // Keepalive by keepalive up to the timeout itself: Alice pings, Bob never answers.
        var elapsed = Duration.zero
        while elapsed + configuration.keepaliveInterval <= configuration.deadPeerTimeout {
            elapsed += configuration.keepaliveInterval
            #expect(await clock.advance(by: configuration.keepaliveInterval, thenWaitFor: 1))
        }
        if elapsed < configuration.deadPeerTimeout {
            #expect(await clock.advance(by: configuration.deadPeerTimeout - elapsed, thenWaitFor: 1))
        }
        #expect(!alice.log.contains(.peerLeft(bob.number, .timedOut)), "not at the timeout itself")
        #expect(await alice.service.connectedPeers().map(\.number) == [bob.number])
        // The timer wakes just past the timeout and drops him.
        clock.advance(by: configuration.tickInterval)
        try await alice.log.first("the dead-peer check") { $0 == .peerLeft(bob.number, .timedOut) ? true : nil }
        #expect(await alice.service.counters().deadPeer == 1)
        await alice.service.stop()
        await bob.service.stop()
    }

    @Test func restartedPeerIsNoticedWithItsNewInstance() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let (alice, bob) = try await linkedPair(configuration)
        let firstInstance = await bob.service.instanceId
        await bob.service.stop()
        #expect(await alice.log.waitUntil { alice.log.contains(.peerLeft(bob.number, .left)) })
        let bob2 = try await TestNode.started(bob.seed, "bob", configuration: configuration)
        let secondInstance = await bob2.service.instanceId
        #expect(firstInstance != secondInstance)
        #expect(await alice.log.waitUntil { alice.log.joined(bob.number)?.instanceId == secondInstance })
        await alice.service.stop()
        await bob2.service.stop()
    }

    /// The old process hangs with its sockets open; its replacement (same
    /// number, new instance) must not wait for the dead-peer timeout.
    /// On the manual clock, in both dial orders: the replacement links
    /// after the restart probe's timeout and a few ticks, far inside the
    /// dead-peer timeout, and the old link goes as `.restarted`.
    @Test(arguments: [true, false])
    func restartWhileTheOldLinkHangsReplacesItQuickly(aliceLower: Bool) async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.deadPeerTimeout = .seconds(60)
        let clock = ManualClock()
        let (alice, bob) = try await linkedPair(configuration, on: clock, from: 51, lowerFirst: aliceLower)
        await bob.service.freezeForTesting()
        let frozenAt = clock.uptime()
        let bob2 = try await TestNode.started(bob.seed, "bob", configuration: configuration, clock: clock)
        let secondInstance = await bob2.service.instanceId
        // Alice and Bob's replacement tick; the frozen Bob does not.
        let replaced = try await Self.advance(clock, by: configuration.tickInterval, timers: 2,
                                              untilBelow: frozenAt + configuration.deadPeerTimeout / 3) {
            alice.log.joined(bob.number)?.instanceId == secondInstance
        }
        #expect(replaced, "replaced after \(clock.uptime() - frozenAt), not by the dead-peer check")
        #expect(alice.log.contains(.peerLeft(bob.number, .restarted)))
        #expect(await alice.service.counters().deadPeer == 0)
        #expect(await waitUntil { await bob2.service.connectedPeers().map(\.number) == [alice.number] })
        #expect(await bob2.service.send(bob2.directMessage("back", to: alice.number), to: alice.number))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("back") })
        for node in [alice, bob, bob2] { await node.service.stop() }
    }

    /// Another instance of a linked peer dials while the real one still
    /// answers: the link stays and the claim is refused. In v2 only a
    /// holder of Bob's key has his number (another key claiming it is
    /// `SpoofingTests`), so the impostor is a second process with a copy
    /// of Bob's key: held, never accepted, closed once Bob answers a ping.
    @Test func anotherInstanceCannotHijackALiveLink() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let (alice, bob) = try await linkedPair(configuration)
        let impostor = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 42, "bob")
        #expect(impostor.number == bob.number)
        try impostor.sendMessage1()
        try await impostor.awaitMessage2()
        try impostor.sendMessage3()
        #expect(await waitUntil { impostor.isClosed })
        #expect(impostor.frames.isEmpty, "never accepted")
        #expect(await waitUntil { await alice.service.counters().identityConflicts == 1 })
        #expect(!alice.log.events.contains { if case .peerLeft = $0 { true } else { false } })
        #expect(await alice.service.connectedPeers().first?.instanceId == bob.service.instanceId)
        #expect(await bob.service.broadcast(bob.publicMessage("still me")) == 1)
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("still me") })
        await alice.service.stop()
        await bob.service.stop()
    }

    @Test func startingTwiceFailsAndStopIsIdempotent() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(61, "alice", configuration: configuration)
        await #expect(throws: TransportError.alreadyStarted) { try await alice.service.start() }
        await alice.service.stop()
        await alice.service.stop()
        await #expect(throws: TransportError.alreadyStarted) { try await alice.service.start() }
    }

    @Test func startErrorsNameTheProblem() async throws {
        var configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        configuration.broadcastAddresses = ["127.255.255"]
        let badAddress = P2PService(identity: TestNetwork.identity(62, "a"), configuration: configuration)
        await #expect(throws: TransportError.invalidAddress("127.255.255")) { try await badAddress.start() }

        // Refused before any socket opens: nothing is sent to it.
        configuration.broadcastAddresses = ["127.255.255.255", "8.8.8.8"]
        let offLAN = P2PService(identity: TestNetwork.identity(66, "e"), configuration: configuration)
        let refusal = await #expect(throws: TransportError.self) { try await offLAN.start() }
        #expect(refusal?.description.contains("beacons to 8.8.8.8 would leave the LAN") == true)
        #expect(await offLAN.listeningPort == 0)

        configuration.broadcastAddresses = []
        configuration.staticPeers = ["no-port"]
        let badPeer = P2PService(identity: TestNetwork.identity(63, "b"), configuration: configuration)
        await #expect(throws: TransportError.invalidAddress("no-port")) { try await badPeer.start() }

        configuration.staticPeers = []
        let first = try await TestNode.started(64, "c", configuration: configuration)
        configuration.listenPort = await first.service.listeningPort
        let second = P2PService(identity: TestNetwork.identity(65, "d"), configuration: configuration)
        let error = await #expect(throws: TransportError.self) { try await second.start() }
        #expect(error?.errno == EADDRINUSE)
        await first.service.stop()
    }
}
