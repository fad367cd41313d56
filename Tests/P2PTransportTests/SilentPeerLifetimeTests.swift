import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// On a LAN large enough for beacons to be skipped, a settled node may stay
/// silent for the schedule's longest silence (`BeaconSchedule.maxSilence`),
/// so its announcement must outlive that silence: when it expired sooner,
/// the LAN's size counted only nodes heard lately, the smaller size
/// shortened the intervals, the silences and the timeout with them (issue
/// 29: 959 nodes on one host beaconed four times as often as the schedule
/// means). On a manual clock; this node is 500.
@Suite struct SilentPeerLifetimeTests {
    typealias Driver = TransportCoreDriver

    /// `count` peers on this host heard twice each (their start bursts),
    /// then this node's first periodic turn takes the LAN's size.
    static func settled(_ count: Int) -> Driver {
        var driver = Driver.started()
        driver.finishBurst()
        for round in 0..<2 {
            for index in 0..<count {
                let number = Driver.number(1_000 + UInt64(index))
                let source = IPv4Endpoint(address: 0x7F00_0001, port: 30_000 + index)
                driver.feed(.beaconHeard(Driver.beacon(number, port: 20_000 + index), from: source, linked: nil,
                                         at: driver.now, overlay: driver.overlay))
            }
            driver.advance(by: .milliseconds(100 * (round + 1)))
        }
        driver.advance(by: max(driver.core.beacons.nextAt - driver.now, .zero))
        _ = driver.core.beaconTurn(at: driver.now, bounded: true)
        return driver
    }

    /// Nobody beacons for `total`: every 5 s, the beacon turn when due and
    /// the expiry pass, as the shell's tick runs them.
    static func silence(_ driver: inout Driver, for total: Duration) {
        let end = driver.now + total
        while driver.now < end {
            driver.advance(by: min(.seconds(5), end - driver.now))
            _ = driver.core.beaconTurn(at: driver.now, bounded: true)
            driver.core.expireAnnouncements(at: driver.now)
        }
    }

    @Test func aPeerSilentForTheLongestSilenceIsStillCounted() {
        var driver = Self.settled(300)
        #expect(driver.core.beacons.knownAtTurn == 301)
        let longest = driver.core.beacons.schedule.maxSilence(knownNodes: 301)
        #expect(longest == .seconds(300))
        Self.silence(&driver, for: longest)
        #expect(driver.core.announcements.count == 300)
        #expect(driver.core.beacons.knownAtTurn == 301, "the size shrank with the silence")
    }

    /// A peer that counts more nodes than this one may stay silent longer:
    /// at a size of 601 the schedule allows 300 s, a peer that counts 1,000
    /// keeps 400 s, and forgetting it would shrink this node's size.
    @Test func aPeerThatCountsMoreNodesIsStillCountedThroughItsLongerSilence() {
        var driver = Self.settled(600)
        #expect(driver.core.beacons.knownAtTurn == 601)
        let ours = driver.core.beacons.schedule.maxSilence(knownNodes: 601)
        let theirs = driver.core.beacons.schedule.maxSilence(knownNodes: 1_000)
        #expect(theirs > ours + .seconds(60))
        Self.silence(&driver, for: theirs)
        #expect(driver.core.announcements.count == 600)
        #expect(driver.core.beacons.knownAtTurn == 601)
    }

    @Test func aPeerSilentLongerThanTheScheduleAllowsIsForgotten() {
        var driver = Self.settled(300)
        Self.silence(&driver, for: driver.core.announcementTimeout + .seconds(10))
        #expect(driver.core.announcements.count == 0)
    }

    /// A node that joined a settled LAN hears each node once in minutes:
    /// with bounded links it counts them at once (it took 1,000 nodes for
    /// 14-50 and beaconed every 2-5 s); with a full mesh only nodes heard
    /// twice count, so invented beacons heard once do not move it.
    @Test func aLateJoinerWithBoundedLinksCountsNodesHeardOnce() {
        for bounded in [true, false] {
            var driver = Driver.started()
            driver.finishBurst()
            for index in 0..<300 {
                let number = Driver.number(1_000 + UInt64(index))
                let source = IPv4Endpoint(address: 0x7F00_0001, port: 30_000 + index)
                driver.feed(.beaconHeard(Driver.beacon(number, port: 20_000 + index), from: source, linked: nil,
                                         at: driver.now, overlay: driver.overlay))
            }
            driver.advance(by: max(driver.core.beacons.nextAt - driver.now, .zero))
            _ = driver.core.beaconTurn(at: driver.now, bounded: bounded)
            #expect(driver.core.beacons.knownAtTurn == (bounded ? 301 : 1))
        }
    }

    @Test func aSmallLANKeepsTheShortTimeout() {
        let driver = Self.settled(10)
        #expect(driver.core.beacons.knownAtTurn == 11)
        #expect(driver.core.announcementTimeout == DiscoverySettings().deadPeerTimeout)
    }
}
