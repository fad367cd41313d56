import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// The whole wake plan of the pure core, on a manual clock: busy ticks
/// while something short is under way, otherwise the earliest of the
/// beacon turn, the overlay's step, an answer, a dial, an expiry, a
/// static peer and the links' deadlines; and the tick's passes over the
/// announcements only when the last plan found something due.
@Suite struct TransportCoreWakeTests {
    typealias Driver = TransportCoreDriver

    @Test func theStartBurstTicksBusyThenTheBeaconTurnIsTheWake() {
        var driver = Driver.started()
        #expect(driver.wakeAll() == driver.now + Driver.busy)
        driver.finishBurst()
        #expect(!driver.core.isBusy)
        #expect(driver.wakeAll() == driver.core.beacons.nextAt)
        #expect(driver.wakeAll(overlayDue: driver.now + .milliseconds(700)) == driver.now + .milliseconds(700), "the overlay's step")
    }

    @Test func theShellsOwnShortDeadlinesKeepTheTickBusy() {
        var driver = Driver.started()
        driver.finishBurst()
        #expect(driver.core.nextWake(at: driver.now, facts: WakeFacts(busy: true)) == driver.now + Driver.busy)
        #expect(driver.core.quickWake(at: driver.now, facts: WakeFacts(busy: true)) == driver.now + Driver.busy)
    }

    @Test func aStaticPeersRedialIsAWake() {
        var driver = Driver.started(statics: [HostPort(host: "10.0.0.7", port: 7_000)])
        driver.finishBurst()
        driver.feed(.dialFailed(expecting: nil, staticIndex: 0, at: driver.now))
        let redial = driver.core.statics[0].nextDialAt
        #expect(redial < driver.core.beacons.nextAt)
        #expect(driver.wakeAll() == redial)
    }

    @Test func aWaitingAnswerKeepsTheTickBusy() throws {
        var driver = Driver.started {
            $0.answerPolicy.quietSize = 0
            $0.answerPolicy.answerers = 0
        }
        driver.finishBurst()
        // A newcomer on loopback, answered after a random wait of a large LAN.
        _ = driver.feed(.beaconHeard(Driver.beacon(Driver.lower), from: IPv4Endpoint(address: 0x7F00_0001, port: 47_474),
                                     linked: nil, at: driver.now, overlay: .none))
        #expect(driver.core.answers.nextDue != nil)
        #expect(driver.wakeAll() == driver.now + Driver.busy)
        driver.advance(by: try #require(driver.core.answers.nextDue) - driver.now)
        #expect(Driver.beaconsSent(driver.tickAll()) == 1, "the delayed answer")
        #expect(driver.core.answers.nextDue == nil)
        #expect(!driver.core.isBusy)
    }

    @Test func anExpiryWaitsAnEighthOfItsTimeoutToShareAWake() {
        var driver = Driver.started { $0.beacons = false }
        driver.overlay = OverlayView(bounded: true)  // no dial due: the expiry alone
        let heardAt = driver.now
        driver.hear(Driver.lower, from: 1)
        driver.advance(by: .seconds(4))
        let timeout = driver.core.announcementTimeout
        #expect(driver.wakeAll() == heardAt + timeout + .nanoseconds(1) + timeout / 8)
    }

    @Test func theTicksPassesRunOnlyWhenThePlanFoundSomethingDue() throws {
        var driver = Driver.started()
        driver.hear(Driver.lower, from: 1)
        driver.finishBurst()
        _ = driver.wakeAll()
        let due = try #require(driver.core.planned.dialsDue)
        #expect(!driver.core.passNeeded(driver.core.planned.dialsDue, at: driver.now))
        #expect(driver.core.passNeeded(driver.core.planned.dialsDue, at: due))
        // The overlay stepped: the plan no longer holds.
        driver.feed(.overlayChanged)
        #expect(driver.core.passNeeded(driver.core.planned.dialsDue, at: driver.now))
        // A plan that found the overlay asking for it dials at once.
        driver.overlay.asked = [Driver.lower]
        _ = driver.wakeAll()
        #expect(try #require(driver.core.planned.dialsDue) <= driver.now)
        #expect(Driver.dialled(driver.tickAll()) == [Driver.lower.rawValue])
    }
}
