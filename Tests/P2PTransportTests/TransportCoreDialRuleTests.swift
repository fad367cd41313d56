import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Who dials whom and when, on the pure core and a manual clock: the lower
/// number at once, the higher only after `fallbackDialDelay` without a
/// link, the overlay's say above its threshold, backoff after a failure,
/// and a crowded table's once-heard inventions left to the ordered pass.
/// This node is 500.
@Suite struct TransportCoreDialRuleTests {
    typealias Driver = TransportCoreDriver

    @Test func theLowerNumberDialsAtOnce() {
        var driver = Driver.started()
        let actions = driver.hear(Driver.higher, from: 1)
        #expect(actions.contains(.dial(Driver.address(1, port: 7_000), expecting: Driver.higher)))
        #expect(actions.firstIndex(of: .checkDial(Driver.higher)) != nil, "the rule looks once the overlay has heard")
    }

    @Test func theHigherNumberWaitsForTheFallbackDelay() {
        var driver = Driver.started()
        let heardAt = driver.now
        #expect(Driver.dialled(driver.hear(Driver.lower, from: 1)).isEmpty, "the lower one dials us")
        let fallback = DiscoverySettings().fallbackDialDelay
        driver.finishBurst()
        _ = driver.wakeAll()
        #expect(driver.core.planned.dialsDue == heardAt + fallback, "the plan wakes for the fallback dial")
        driver.advance(by: heardAt + fallback - driver.now - .milliseconds(1))
        #expect(Driver.dialled(driver.tickAll()).isEmpty, "not a moment early")
        driver.advance(by: .milliseconds(1))
        #expect(Driver.dialled(driver.tickAll()) == [Driver.lower.rawValue])
    }

    @Test func aFailedDialBacksOffAndDoubles() throws {
        var driver = Driver.started()
        driver.hear(Driver.higher, from: 1)
        driver.feed(.dialFailed(expecting: Driver.higher, staticIndex: nil, at: driver.now))
        let base = DiscoverySettings().reconnectDelay
        let first = try #require(driver.core.announcements[Driver.higher]).nextDialAt - driver.now
        #expect(first >= base * 0.8 && first <= base * 1.2, "\(first)")
        #expect(Driver.dialled(driver.feed(.dialWanted(Driver.higher, at: driver.now, overlay: .none))).isEmpty)
        driver.advance(by: first)
        #expect(Driver.dialled(driver.tickAll()) == [Driver.higher.rawValue])
        driver.feed(.dialFailed(expecting: Driver.higher, staticIndex: nil, at: driver.now))
        let second = try #require(driver.core.announcements[Driver.higher]).nextDialAt - driver.now
        #expect(second >= base * 1.6 && second <= base * 2.4, "\(second)")
    }

    @Test func aboveTheThresholdOnlyWhatTheOverlayAsksForIsDialled() {
        var driver = Driver.started()
        driver.overlay = OverlayView(bounded: true)
        #expect(Driver.dialled(driver.hear(Driver.higher, from: 1)).isEmpty, "not asked for")
        driver.overlay.asked = [Driver.lower]
        #expect(Driver.dialled(driver.hear(Driver.lower, from: 2)) == [Driver.lower.rawValue],
                "asked for: at once, whichever number is lower")
        driver.overlay.asked = []
        driver.overlay.legacy = [Driver.higher]
        #expect(Driver.dialled(driver.tickAll()) == [Driver.higher.rawValue], "no overlay: the usual rule")
    }

    @Test func inAFullMeshTheOverlaysAskMakesTheHigherDialAtOnce() {
        var driver = Driver.started()
        driver.overlay = OverlayView(bounded: false, asked: [Driver.lower])
        #expect(Driver.dialled(driver.hear(Driver.lower, from: 1)) == [Driver.lower.rawValue])
    }

    @Test func aDialOverTheBudgetWaitsAndIsCountedOnce() {
        var limits = PeerLimits()
        limits.maxPendingDials = 1
        var driver = Driver.started(limits: limits)
        let first = driver.hear(Driver.number(600), from: 1)
        #expect(Driver.dialled(first) == [600])
        _ = driver.core.openDial(to: Driver.address(1, port: 7_000), expecting: Driver.number(600), at: driver.now)
        #expect(Driver.dialled(driver.hear(Driver.number(601), from: 2)).isEmpty, "over the budget: it waits")
        #expect(driver.core.announcements[Driver.number(601)]?.dialDeferred == true)
        #expect(!driver.log.contains(.deferDial(Driver.number(601))), "the core keeps its deferrals")
        driver.tickAll()
        driver.tickAll()
        #expect(driver.core.counts.deferredDials == 1, "a wait is counted once")
    }

    @Test func aCrowdedTableLeavesOnceHeardInventionsToTheTick() {
        var limits = PeerLimits()
        limits.maxAnnouncementsPerAddress = 2
        var driver = Driver.started(limits: limits)
        for number in 600..<603 { driver.hear(Driver.number(UInt64(number)), from: 1, port: 7_000 + number) }
        #expect(driver.core.announcements.isCrowded(at: driver.now, window: .milliseconds(200)))
        let fresh = driver.hear(Driver.number(700), from: 1, port: 7_700)
        #expect(Driver.dialled(fresh).isEmpty, "a flood's newcomer waits for the ordered pass")
        #expect(Driver.dialled(driver.tickAll()).contains(700))
    }
}
