import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Quiet overlay links (capability `quietLinks`, PROTOCOL.md 5.1) on the pure
/// core's manual clock: the dialler's first quiet ping still comes at the
/// stretched interval (the acceptor does not know yet), the next ones 12 s
/// apart, the acceptor stays silent as long, and a dead peer is still
/// closed 36 s after the last quiet ping at most.
@Suite struct QuietLinkTests {
    typealias Driver = TransportCoreDriver

    /// A stretched, quiet link dialled to `higher`, with its pings noted as
    /// the service notes them (quiet when `load.quiet` holds the link).
    private static func quietDialler() -> (Driver, Int) {
        var driver = Driver()
        let link = driver.outbound(Driver.higher, to: 1)
        driver.load.stretched = [link]
        driver.load.quiet = [link]
        return (driver, link)
    }

    private static func tickNoting(_ driver: inout Driver) -> [TransportAction] {
        let actions = driver.tick()
        for case .ping(let id) in actions {
            driver.core.noteDialerPing(id, at: driver.now, quiet: driver.load.quiet.contains(id))
        }
        return actions
    }

    @Test func theDiallerPingsQuietlyOnlyAfterItsFirstQuietPing() {
        var (driver, link) = Self.quietDialler()
        driver.advance(by: .seconds(4))
        #expect(Self.tickNoting(&driver) == [.ping(link)], "the first at the stretched 4 s: the peer expects it")
        driver.core.noteReceived(link, at: driver.now)
        driver.advance(by: .seconds(4))
        #expect(Self.tickNoting(&driver).isEmpty, "then quiet: not at 4 s")
        driver.advance(by: .seconds(8))
        #expect(Self.tickNoting(&driver) == [.ping(link)], "but at 12 s")
    }

    @Test func aDeadPeerIsStillClosedWithinTheQuietTimeout() throws {
        var (driver, link) = Self.quietDialler()
        driver.advance(by: .seconds(4))
        #expect(Self.tickNoting(&driver) == [.ping(link)])
        let quietPingAt = driver.now
        // The peer died: no pong, nothing ever again. The dialler keeps
        // pinging every 12 s (each a quiet ping moving the allowance).
        var closedAt: Duration?
        while closedAt == nil, driver.now < quietPingAt + .seconds(120) {
            driver.advance(by: .milliseconds(100))
            for action in Self.tickNoting(&driver) {
                if case .close(link, .peerSilent) = action { closedAt = driver.now }
            }
        }
        let closed = try #require(closedAt, "never closed") - quietPingAt
        #expect(closed <= .seconds(36) + .milliseconds(100), "closed \(closed) after the first quiet ping")
        #expect(closed > .seconds(12), "not at the stretched 12 s")
    }

    @Test func theAcceptorOfAQuietPingStaysSilentAndWaitsLonger() {
        var driver = Driver()
        let link = driver.inbound(Driver.lower, from: 2)
        driver.load.stretched = [link]
        driver.core.noteReceived(link, at: driver.now)
        driver.core.noteDialerPing(link, at: driver.now, quiet: true)
        driver.core.noteSent(link, at: driver.now, wasIdle: true)  // the pong
        driver.advance(by: .seconds(17))
        #expect(driver.tick().isEmpty, "no ping of its own while the dialler pings quietly (12 s)")
        driver.advance(by: .seconds(1))
        #expect(driver.tick() == [.ping(link)], "1.5 quiet keepalives without a ping: its own")
        driver.advance(by: .seconds(18))
        #expect(!driver.tick().contains(.close(link, .peerSilent(after: .seconds(12)))), "36 s after the quiet ping: not yet")
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick().contains(.close(link, .peerSilent(after: .seconds(12)))))
    }

    /// A dialler whose other frames (overlay shuffles, gossip) come often
    /// enough never pings: each frame, not only a quiet ping, keeps the
    /// acceptor's allowance (the bench's 300 nodes dropped 11 live links in
    /// 20 s when only the quiet ping did).
    @Test func aQuietDiallersOtherFramesKeepTheAllowance() {
        var driver = Driver()
        let link = driver.inbound(Driver.lower, from: 2)
        driver.load.stretched = [link]
        driver.core.noteReceived(link, at: driver.now)
        driver.core.noteDialerPing(link, at: driver.now, quiet: true)
        // Frames 12 s apart (the dialler's keepalive timer restarts at
        // each), each a little later on the way than the one before.
        for lateness in [100, 200, 300] {
            driver.advance(by: .seconds(12) + .milliseconds(100))
            #expect(!driver.tick().contains(.close(link, .peerSilent(after: .seconds(12)))), "\(lateness) ms late")
            driver.core.noteReceived(link, at: driver.now)
        }
        driver.advance(by: .milliseconds(12_200))
        #expect(!driver.tick().contains(.close(link, .peerSilent(after: .seconds(12)))), "48.5 s after the quiet ping")
        driver.advance(by: .seconds(24))
        #expect(driver.tick().contains(.close(link, .peerSilent(after: .seconds(12)))), "36 s after the last frame")
    }

    @Test func anOrdinaryPingEndsTheQuietButNotItsAllowance() {
        var driver = Driver()
        let link = driver.inbound(Driver.lower, from: 2)
        driver.core.noteDialerPing(link, at: driver.now, quiet: true)
        driver.advance(by: .seconds(10))
        // The dialler left the quiet (its overlay went full mesh): ordinary again.
        driver.core.noteReceived(link, at: driver.now)
        driver.core.noteDialerPing(link, at: driver.now, quiet: false)
        driver.core.noteSent(link, at: driver.now, wasIdle: true)
        driver.advance(by: .seconds(3))
        #expect(driver.tick() == [.ping(link)], "the acceptor's ordinary 3 s")
        driver.advance(by: .seconds(22))
        #expect(!driver.tick().contains(.close(link, .peerSilent(after: .seconds(6)))), "25 s after the last frame: allowed")
        driver.advance(by: .milliseconds(1_001))
        #expect(driver.tick().contains(.close(link, .peerSilent(after: .seconds(6)))), "past 36 s after the quiet ping")
    }

    @Test func aPeerWithoutTheCapabilityHearsAsOftenAsBefore() {
        var driver = Driver()
        let link = driver.outbound(Driver.higher, to: 1)
        driver.load.stretched = [link]
        for _ in 0..<3 {
            driver.advance(by: .seconds(4))
            #expect(Self.tickNoting(&driver) == [.ping(link)], "every 4 s: not in load.quiet")
        }
    }
}
