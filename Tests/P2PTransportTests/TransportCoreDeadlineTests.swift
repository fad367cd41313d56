import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Link deadlines decided by the pure core on a manual clock: keepalives,
/// dead peers, stalled writes and handshakes, stretched overlay links, and
/// when the timer must wake after each input.
@Suite struct TransportCoreDeadlineTests {
    typealias Driver = TransportCoreDriver

    @Test func theDiallerPingsAQuietLinkAtTheKeepaliveAndTheAcceptorLater() {
        var driver = Driver()
        let dialled = driver.outbound(Driver.higher, to: 1)
        let accepted = driver.inbound(Driver.lower, from: 2)
        driver.advance(by: .milliseconds(1_999))
        #expect(driver.tick().isEmpty)
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick() == [.ping(dialled)], "the dialler keeps the link alive")
        driver.advance(by: .milliseconds(999))
        #expect(driver.tick().isEmpty, "the acceptor waits 1.5 keepalives (3 s)")
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick() == [.ping(dialled), .ping(accepted)], "the dialler's, half due, goes along")
    }

    @Test func aSilentPeerIsClosedAfterTheDeadPeerTimeout() {
        var driver = Driver()
        let link = driver.outbound(Driver.higher, to: 1)
        driver.advance(by: .seconds(5))
        driver.core.noteReceived(link, at: driver.now)
        driver.advance(by: .seconds(6))
        #expect(!driver.tick().contains(.close(link, .peerSilent(after: .seconds(6)))), "6 s exactly is not past it")
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick() == [.close(link, .peerSilent(after: .seconds(6)))])
        #expect(driver.core.linkCount == 0)
    }

    @Test func silenceWhileThisSideDoesNotReadIsNotThePeers() {
        var driver = Driver()
        let link = driver.outbound(Driver.higher, to: 1)
        for _ in 0..<10 {
            driver.advance(by: .seconds(1))
            driver.core.noteNotReading(link, at: driver.now)
            let closes = driver.tick().filter { action in
                if case .close = action { return true }
                return false
            }
            #expect(closes.isEmpty)
        }
    }

    @Test func queuedOutputThatDoesNotMoveClosesTheLink() {
        var driver = Driver()
        let link = driver.outbound(Driver.higher, to: 1)
        driver.core.noteSent(link, at: driver.now, wasIdle: true)
        driver.load.queued = [link]
        for _ in 0..<5 {
            driver.advance(by: .seconds(1))
            driver.core.noteReceived(link, at: driver.now)
            #expect(!driver.tick().contains(.close(link, .writeStalled)))
        }
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick() == [.close(link, .writeStalled)])

        // The same silence with nothing queued is fine.
        var idle = Driver()
        let quiet = idle.outbound(Driver.higher, to: 1)
        for _ in 0..<6 {
            idle.advance(by: .seconds(1))
            idle.core.noteReceived(quiet, at: idle.now)
            #expect(!idle.tick().contains(.close(quiet, .writeStalled)))
        }
    }

    @Test func aHandshakeThatStallsOrDragsOnIsClosed() {
        var driver = Driver()
        let stalled = driver.arrive(from: Driver.address(1))!
        let dragging = driver.arrive(from: Driver.address(2))!
        driver.advance(by: .seconds(2))
        driver.core.noteHandshakeProgress(dragging, at: driver.now)
        driver.advance(by: .milliseconds(1_001))
        #expect(driver.tick() == [.close(stalled, .handshakeTimedOut)])
        // Progress every 2 s still ends at twice the timeout from opening.
        driver.advance(by: .milliseconds(1_999))
        driver.core.noteHandshakeProgress(dragging, at: driver.now)
        #expect(driver.tick().isEmpty)
        driver.advance(by: .milliseconds(1_001))
        #expect(driver.tick() == [.close(dragging, .handshakeTimedOut)])
    }

    @Test func stretchedOverlayLinksPingAndGiveUpLater() {
        var driver = Driver()
        let overlay = driver.outbound(Driver.higher, to: 1)
        driver.load.stretched = [overlay]
        driver.advance(by: .seconds(2))
        #expect(driver.tick().isEmpty, "keepalive stretched to 4 s")
        driver.advance(by: .seconds(2))
        #expect(driver.tick() == [.ping(overlay)])
        driver.advance(by: .milliseconds(2_001))
        #expect(driver.tick().isEmpty, "6 s of silence is not dead on a stretched link")
        driver.advance(by: .seconds(6))
        #expect(driver.tick() == [.close(overlay, .peerSilent(after: .seconds(12)))])
    }

    @Test func aKeepaliveNearlyDueGoesAlongWithOneThatIsDue() {
        var driver = Driver()
        let first = driver.outbound(Driver.higher, to: 1)
        driver.advance(by: .milliseconds(800))
        let second = driver.outbound(NodeNumber(rawValue: 901)!, to: 2)
        driver.advance(by: .milliseconds(1_200))
        #expect(driver.tick() == [.ping(first), .ping(second)], "1.2 s of 2 s is within the slack: one wake-up")
        var apart = Driver()
        let early = apart.outbound(Driver.higher, to: 1)
        apart.advance(by: .milliseconds(1_200))
        _ = apart.outbound(NodeNumber(rawValue: 901)!, to: 2)
        apart.advance(by: .milliseconds(800))
        #expect(apart.tick() == [.ping(early)], "0.8 s of 2 s is not")
    }

    @Test func theWakePlanFollowsEachInput() {
        var driver = Driver()
        #expect(driver.wake() == driver.now + Driver.longest, "no links: the longest sleep")
        let link = driver.arrive(from: Driver.address(1))!
        #expect(driver.wake() == driver.now + Driver.busy, "a handshake under way: busy ticks")
        driver.feed(.peerVerified(link: link, number: Driver.lower, instance: "a", listen: Driver.address(1, port: 7_000)))
        #expect(driver.wake() == driver.now + .seconds(3), "established, inbound: the acceptor's keepalive")
        driver.advance(by: .seconds(1))
        driver.core.noteSent(link, at: driver.now, wasIdle: true)
        #expect(driver.wake() == driver.now + .seconds(3), "a frame sent moves the keepalive")
        driver.load.queued = [link]
        driver.advance(by: .seconds(2))
        driver.core.noteReceived(link, at: driver.now)
        #expect(driver.wake() == driver.now + .seconds(1), "the keepalive comes before the write deadline")
        #expect(driver.tick().isEmpty)
        driver.advance(by: .seconds(1))
        #expect(driver.tick() == [.ping(link)])
        #expect(driver.wake() == driver.now + .seconds(2) + .nanoseconds(1),
                "the ping did not move the write deadline: output is still queued")
        driver.load.queued = []
        #expect(driver.wake() == driver.now + .seconds(3))
        let claim = driver.arrive(from: Driver.address(2))!
        #expect(driver.wake() == driver.now + Driver.busy)
        driver.core.close(claim)
        driver.core.close(link)
        #expect(driver.wake() == driver.now + Driver.longest)
    }
}
