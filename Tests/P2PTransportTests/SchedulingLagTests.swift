@testable import P2PTransport
import Testing

/// The handshake deadline policy under load: a timer that wakes late gives
/// handshakes more time, within a cap, and the allowance fades once the
/// process keeps time again.
@Suite struct SchedulingLagTests {
    @Test func aPunctualTimerGivesNothing() {
        var lag = SchedulingLag()
        for second in 1...100 {
            let due = Duration.seconds(second)
            lag.woke(at: due + .milliseconds(40), due: due)
        }
        #expect(lag.handshakeAllowance(at: .seconds(100)) == .zero)
    }

    @Test func aLateTimerGivesHandshakesMoreTimeThenFades() {
        var lag = SchedulingLag()
        lag.woke(at: .seconds(12), due: .seconds(10))
        #expect(lag.handshakeAllowance(at: .seconds(12)) == .seconds(6), "three times the 2 s it ran late")
        // Halved every 10 s.
        #expect(lag.lag(at: .seconds(22)) == .seconds(1))
        #expect(lag.handshakeAllowance(at: .seconds(22)) == .seconds(3))
        #expect(lag.handshakeAllowance(at: .seconds(100)) == .zero)
        // A smaller lateness meanwhile does not lower it.
        lag.woke(at: .seconds(13), due: .seconds(12) + .milliseconds(500))
        #expect(lag.handshakeAllowance(at: .seconds(13)) > .seconds(5))
    }

    @Test func theAllowanceIsCapped() {
        var lag = SchedulingLag()
        lag.woke(at: .seconds(100), due: .seconds(40))
        #expect(lag.handshakeAllowance(at: .seconds(100)) == SchedulingLag.cap)
    }

    /// In the core: a handshake that times out after 3 s without progress
    /// on a punctual host lives on with the allowance, and still ends at
    /// the allowance's deadline.
    @Test func theCoreTimesHandshakesOutLaterUnderLoad() {
        var punctual = TransportCoreDriver()
        let early = punctual.arrive(from: TransportCoreDriver.address(1))!
        punctual.advance(by: .milliseconds(3_001))
        #expect(punctual.tick() == [.close(early, .handshakeTimedOut)])

        var loaded = TransportCoreDriver()
        loaded.load = LinkLoad(handshakeAllowance: .seconds(6))
        let slow = loaded.arrive(from: TransportCoreDriver.address(1))!
        loaded.advance(by: .milliseconds(3_001))
        #expect(loaded.tick().isEmpty)
        loaded.advance(by: .seconds(6))
        #expect(loaded.tick() == [.close(slow, .handshakeTimedOut)])
    }
}
