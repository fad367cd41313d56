import ChatCore
import ChatWire
import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// The link as pure values on a manual clock: no socket, no sleep. The
/// lifecycle says what is due when; two `LinkHandshake`s talk to each other
/// through byte arrays.
@Suite struct LinkLifecycleTests {
    static let timeouts = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(6), write: .seconds(5),
                                                 keepalive: .seconds(2))
    static let ping = MessageID(millis: 1_732_147_200_000, random: (1, 2))

    func due(_ link: LinkLifecycle, _ clock: ManualClock, queued: Bool = false) -> LinkLifecycle.Decision? {
        link.decision(at: clock.uptime(), hasQueuedOutput: queued, timeouts: Self.timeouts)
    }

    @Test func anUnfinishedHandshakeTimesOutAtItsDeadlineNotBefore() {
        let clock = ManualClock(uptime: .seconds(100))
        var link = LinkLifecycle(phase: .connecting, openedAt: clock.uptime())
        clock.advance(by: .seconds(1))
        link.connected()
        #expect(link.phase == .handshaking)
        clock.advance(by: .seconds(2))
        #expect(due(link, clock) == nil, "exactly at the deadline is still in time")
        clock.advance(by: .milliseconds(1))
        #expect(due(link, clock) == .handshakeTimedOut)
        // A held link has the same deadline: holding does not extend it.
        var held = LinkLifecycle(phase: .handshaking, openedAt: .seconds(100))
        held.hold()
        #expect(held.phase == .held)
        #expect(due(held, clock) == .handshakeTimedOut)
    }

    @Test func aHandshakeMessageMovesTheDeadlineUpToTheCap() {
        let clock = ManualClock(uptime: .seconds(100))
        var link = LinkLifecycle(phase: .connecting, openedAt: clock.uptime())
        link.connected()
        clock.advance(by: .milliseconds(2_900))
        link.handshakeProgressed(at: clock.uptime())
        clock.advance(by: .milliseconds(200))
        #expect(due(link, clock) == nil, "3.1 s after opening, 0.2 s after a message: slow, not dead")
        clock.advance(by: .milliseconds(2_800))
        link.handshakeProgressed(at: clock.uptime())
        #expect(due(link, clock) == nil, "5.9 s: still within twice the timeout")
        clock.advance(by: .milliseconds(101))
        #expect(due(link, clock) == .handshakeTimedOut, "past twice the timeout however it moves")
        // A stalled one: 3 s after its last message.
        var stalled = LinkLifecycle(phase: .handshaking, openedAt: .seconds(100))
        stalled.handshakeProgressed(at: .seconds(101))
        #expect(stalled.decision(at: .seconds(104), hasQueuedOutput: false, timeouts: Self.timeouts) == nil)
        #expect(stalled.decision(at: .milliseconds(104_001), hasQueuedOutput: false, timeouts: Self.timeouts) == .handshakeTimedOut)
        // Once established it no longer counts.
        stalled.establish()
        stalled.handshakeProgressed(at: .seconds(110))
        #expect(stalled.handshakeProgressAt == .seconds(101))
    }

    @Test func transitionsOnlyGoForward() {
        var link = LinkLifecycle(phase: .connecting, openedAt: .zero)
        link.establish()
        #expect(link.phase == .connecting, "no link is established before its handshake")
        link.hold()
        #expect(link.phase == .connecting)
        link.connected()
        link.establish()
        #expect(link.phase == .established)
        link.hold()
        link.connected()
        #expect(link.phase == .established)
    }

    @Test func anEstablishedLinkPingsWhenIdleAndDiesWhenSilent() {
        let clock = ManualClock(uptime: .seconds(10))
        var link = LinkLifecycle(phase: .connecting, openedAt: clock.uptime(), direction: .outbound)
        link.connected()
        link.establish()
        clock.advance(by: .milliseconds(1_999))
        #expect(due(link, clock) == nil)
        clock.advance(by: .milliseconds(1))
        #expect(due(link, clock) == .keepalive)
        link.sent(at: clock.uptime())
        #expect(due(link, clock) == nil)
        // Receiving keeps it alive; silence past the timeout ends it, even
        // though pings keep going out.
        clock.advance(by: .seconds(3))
        link.received(at: clock.uptime())
        for _ in 0..<3 {
            clock.advance(by: .seconds(2))
            #expect(due(link, clock) == .keepalive)
            link.sent(at: clock.uptime())
        }
        #expect(due(link, clock) == nil)
        clock.advance(by: .milliseconds(1))
        #expect(due(link, clock) == .peerSilent)
    }

    /// On a quiet link the dialler pings and the acceptor only answers: its
    /// own pings wait 1.5 intervals (3 s), so its pong (sent at the
    /// dialler's ping, every 2 s) always comes first. Were both ends to ping
    /// at 2 s, each ping would be answered: 4 frames an interval, not 2.
    @Test func onAQuietLinkOnlyTheDiallerPings() {
        let clock = ManualClock(uptime: .seconds(10))
        var dialler = LinkLifecycle(phase: .connecting, openedAt: clock.uptime(), direction: .outbound)
        var acceptor = LinkLifecycle(phase: .handshaking, openedAt: clock.uptime(), direction: .inbound)
        dialler.connected()
        dialler.establish()
        acceptor.establish()
        var pings = (dialler: 0, acceptor: 0)
        for _ in 0..<200 { // 10 s in 50 ms ticks
            clock.advance(by: .milliseconds(50))
            let now = clock.uptime()
            if due(dialler, clock) == .keepalive {
                pings.dialler += 1
                dialler.sent(at: now)
                acceptor.received(at: now)
                acceptor.sent(at: now) // the pong
                dialler.received(at: now)
            }
            if due(acceptor, clock) == .keepalive {
                pings.acceptor += 1
                acceptor.sent(at: now)
                dialler.received(at: now)
                dialler.sent(at: now)
                acceptor.received(at: now)
            }
            #expect(due(dialler, clock) == nil && due(acceptor, clock) == nil)
        }
        #expect(pings.dialler == 5)
        #expect(pings.acceptor == 0)
    }

    /// The acceptor still pings when the dialler is quiet, within half the
    /// dead-peer timeout, and never sooner than the configured interval.
    @Test func theAcceptorPingsWhenTheDiallerIsQuiet() {
        let clock = ManualClock(uptime: .seconds(10))
        var acceptor = LinkLifecycle(phase: .handshaking, openedAt: clock.uptime(), direction: .inbound)
        acceptor.establish()
        clock.advance(by: .milliseconds(2_999))
        #expect(due(acceptor, clock) == nil)
        clock.advance(by: .milliseconds(1))
        #expect(due(acceptor, clock) == .keepalive)
        let tight = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(5), write: .seconds(5), keepalive: .seconds(2))
        #expect(acceptor.keepaliveInterval(tight) == .milliseconds(2_500))
        let tighter = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(3), write: .seconds(5), keepalive: .seconds(2))
        #expect(acceptor.keepaliveInterval(tighter) == .seconds(2))
    }

    /// The bench's receive row: a node that paused reading a fast peer (its
    /// inbox was full) cut it 6 s later as dead while still storing its frames.
    @Test func timeSpentNotReadingIsNotThePeersSilence() {
        let clock = ManualClock()
        var link = LinkLifecycle(phase: .handshaking, openedAt: clock.uptime())
        link.establish()
        for _ in 0..<10 {
            clock.advance(by: .seconds(1))
            link.notReading(at: clock.uptime())
            link.sent(at: clock.uptime())
        }
        #expect(due(link, clock) == nil, "10 s paused, not dead")
        clock.advance(by: .milliseconds(6_001))
        link.sent(at: clock.uptime())
        #expect(due(link, clock) == .peerSilent, "reading again, silence counts")
    }

    @Test func stalledOutputIsCutOnlyWhileSomethingIsQueued() {
        let clock = ManualClock()
        var link = LinkLifecycle(phase: .handshaking, openedAt: clock.uptime())
        link.establish()
        clock.advance(by: .seconds(1))
        link.wroteProgress(at: clock.uptime())
        clock.advance(by: .milliseconds(5_001))
        link.received(at: clock.uptime())
        link.sent(at: clock.uptime())
        #expect(due(link, clock, queued: false) == nil)
        #expect(due(link, clock, queued: true) == .writeStalled)
        link.wroteProgress(at: clock.uptime())
        #expect(due(link, clock, queued: true) == nil)
    }

    @Test func aProbeEndsWithItsPongOrAtItsDeadline() {
        let clock = ManualClock()
        var link = LinkLifecycle(phase: .handshaking, openedAt: clock.uptime())
        link.establish()
        let started = link.startProbe(ping: Self.ping, deadline: clock.uptime() + .seconds(1))
        let second = link.startProbe(ping: Self.ping, deadline: clock.uptime() + .seconds(5))
        #expect(started && !second, "one probe at a time")
        let answered = link.pong(refId: MessageID(millis: 1_732_147_200_000, random: (9, 9)))
        #expect(!answered, "another pong does not answer it")
        clock.advance(by: .milliseconds(1_001))
        link.received(at: clock.uptime())
        link.sent(at: clock.uptime())
        #expect(due(link, clock) == .probeUnanswered)
        let pong = link.pong(refId: Self.ping)
        #expect(pong)
        #expect(due(link, clock) == nil)
    }

    // MARK: The handshake value

    static func hello(_ key: IdentityKey, number: NodeNumber? = nil) -> [UInt8] {
        var hello = P2PPayload(type: .hello, messageId: MessageID(millis: 1_732_147_200_000, random: (3, 4)),
                               senderNumber: number ?? key.nodeNumber, senderNickname: "n", timestamp: 1_732_147_200_000)
        hello.instanceId = UUID().uuidString.lowercased()
        hello.listenPort = 4000
        return Array(P2PFrameCodec.encode(hello).dropLast())
    }

    @Test func twoHandshakeValuesAgreeOnKeysAndIdentities() throws {
        let (alice, bob) = (TestNetwork.key(1), TestNetwork.key(2))
        var dialler = try LinkHandshake(role: .initiator, identity: alice, groupSecret: nil, hello: Self.hello(alice))
        var acceptor = try LinkHandshake(role: .responder, identity: bob, groupSecret: nil, hello: Self.hello(bob))
        guard case .reply(let message2) = try acceptor.read(try dialler.start()) else { Issue.record("no message 2"); return }
        guard case .peer(let bobSeen, let message3?) = try dialler.read(message2) else { Issue.record("no message 3"); return }
        guard case .peer(let aliceSeen, nil) = try acceptor.read(message3) else { Issue.record("no identity"); return }
        #expect(bobSeen.number == bob.nodeNumber && aliceSeen.number == alice.nodeNumber)
        var out = try #require(dialler.transport)
        var into = try #require(acceptor.transport)
        #expect(try into.open(out.seal([1, 2, 3])) == [1, 2, 3])
        // A record replayed is refused: the nonce moved on.
        let record = try out.seal([4])
        _ = try into.open(record)
        #expect(throws: CryptoError.self) { try into.open(record) }
    }

    @Test func aHelloClaimingAnotherNumberIsRefused() throws {
        let (alice, bob, carol) = (TestNetwork.key(1), TestNetwork.key(2), TestNetwork.key(3))
        var dialler = try LinkHandshake(role: .initiator, identity: alice, groupSecret: nil,
                                        hello: Self.hello(alice, number: carol.nodeNumber))
        var acceptor = try LinkHandshake(role: .responder, identity: bob, groupSecret: nil, hello: Self.hello(bob))
        guard case .reply(let message2) = try acceptor.read(try dialler.start()) else { Issue.record("no message 2"); return }
        guard case .peer(_, let message3?) = try dialler.read(message2) else { Issue.record("no message 3"); return }
        #expect {
            try acceptor.read(message3)
        } throws: { error in
            guard case LinkHandshake.Failure.claimedNumber(let claimed, let derived) = error else { return false }
            return claimed == carol.nodeNumber && derived == alice.nodeNumber
        }
    }

    @Test func differentGroupsAndGroupAgainstNoGroupNeverAnswerMessageOne() throws {
        let (alice, bob) = (TestNetwork.key(1), TestNetwork.key(2))
        let ours = try GroupSecret(fileContents: Array("ours".utf8))
        let theirs = try GroupSecret(fileContents: Array("theirs".utf8))
        for (dialling, accepting) in [(ours, theirs), (nil, ours), (ours, nil)] as [(GroupSecret?, GroupSecret?)] {
            var dialler = try LinkHandshake(role: .initiator, identity: alice, groupSecret: dialling, hello: Self.hello(alice))
            var acceptor = try LinkHandshake(role: .responder, identity: bob, groupSecret: accepting, hello: Self.hello(bob))
            #expect {
                try acceptor.read(try dialler.start())
            } throws: { error in
                if case LinkHandshake.Failure.groupMismatch = error { true } else { false }
            }
        }
    }
}
