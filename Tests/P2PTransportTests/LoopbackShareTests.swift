import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Every node on one host beacons from 127.0.0.1. With the LAN address's
/// share of the announcement table (128) there, each of 1,000 nodes on a
/// host knew ~140 of them, took the LAN for that size, and beaconed and
/// answered newcomers as for it (issue 29: ~120 beacons heard a node a
/// second where the schedule's bound is ~3). A loopback address gets a
/// share as large as the table; a LAN address keeps its own. On a manual
/// clock; this node is 500.
@Suite struct LoopbackShareTests {
    typealias Driver = TransportCoreDriver
    static let loopback: UInt32 = 0x7F00_0001

    /// `count` peers (numbers from 1,000) heard twice each from `address`,
    /// as their start bursts are.
    static func heard(_ count: Int, from address: UInt32) -> Driver {
        var driver = Driver.started()
        driver.finishBurst()
        for round in 0..<2 {
            for index in 0..<count {
                let number = Driver.number(1_000 + UInt64(index))
                let source = IPv4Endpoint(address: address, port: 30_000 + index)
                driver.feed(.beaconHeard(Driver.beacon(number, port: 20_000 + index), from: source, linked: nil,
                                         at: driver.now, overlay: driver.overlay))
            }
            driver.advance(by: .milliseconds(100 * (round + 1)))
        }
        return driver
    }

    @Test func threeHundredNodesOnOneHostAreAllCountedForTheBeaconInterval() {
        let driver = Self.heard(300, from: Self.loopback)
        #expect(driver.core.announcements.count == 300)
        #expect(driver.core.counts.refusedAnnouncements == 0 && driver.core.announcements.evictions == 0)
        let known = driver.core.knownNodeCount
        #expect(known == 301)
        // 2 s × 301 / 20, capped at 15 × 2 s: what the schedule's bound assumes.
        #expect(driver.core.beacons.schedule.interval(knownNodes: known) == .seconds(30))
        // About 16 of them answer a newcomer, not 16 of the ~129 a share of 128 left.
        #expect(driver.core.answers.share(knownNodes: known) == 16.0 / 301)
    }

    @Test func aLANAddressKeepsItsShare() {
        let driver = Self.heard(300, from: 0x0A00_0001)
        #expect(driver.core.announcements.count == PeerLimits().maxAnnouncementsPerAddress)
        #expect(driver.core.knownNodeCount == PeerLimits().maxAnnouncementsPerAddress + 1)
    }

    /// The table's total bounds a loopback address too, and a flood of
    /// inventions from it crowds out only unproven entries.
    @Test func aFloodFromLoopbackMeetsTheTotalAndLeavesProvenEntries() {
        var table = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1), maxEntries: 64,
                                      maxPerAddress: 4, maxPerLoopbackAddress: 32)
        func beacon(_ number: UInt64) -> DiscoveryBeacon {
            DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: "n\(number)"),
                            tcpPort: 4_000, instanceId: "i\(number)")
        }
        #expect(table.share(of: Self.loopback) == 32 && table.share(of: 0x7F00_0002) == 32)
        #expect(table.share(of: 0x0A00_0001) == 4)
        for number in UInt64(1)...8 {
            _ = table.observe(beacon(number), from: Self.loopback, at: .zero)
            table.linked(NodeNumber(rawValue: number)!)
        }
        for number in UInt64(100)..<1_100 { _ = table.observe(beacon(number), from: Self.loopback, at: .seconds(1)) }
        #expect(table.count == 32, "the loopback share, not the total, nor more")
        #expect((1...8).allSatisfy { table[NodeNumber(rawValue: UInt64($0))!] != nil }, "proven entries stay")
        // Other addresses still find room up to the total.
        for address in UInt32(1)...40 { _ = table.observe(beacon(5_000 + UInt64(address)), from: 0x0A00_0000 | address, at: .seconds(2)) }
        #expect(table.count == 64)
        var big = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1), maxEntries: 64,
                                    maxPerAddress: 4, maxPerLoopbackAddress: 1_024)
        for number in UInt64(100)..<1_100 { _ = big.observe(beacon(number), from: Self.loopback, at: .seconds(1)) }
        #expect(big.count == 64, "a loopback share over the total is bounded by the total")
    }

    /// A share of 1024 forgets 8 in one pass (`passPerEviction`): a 10k/s
    /// flood from loopback costs a pass per 8 inventions, not one per
    /// invention over 1024 entries. The order holds: a node heard twice
    /// outlasts every once-heard invention.
    @Test func aLargeShareForgetsABatchPerPassInOrder() {
        var table = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1))
        func beacon(_ number: UInt64) -> DiscoveryBeacon {
            DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: "n\(number)"),
                            tcpPort: 4_000, instanceId: "i\(number)")
        }
        let real = beacon(1 << 40)
        _ = table.observe(real, from: Self.loopback, at: .zero)
        _ = table.observe(real, from: Self.loopback, at: .milliseconds(1))
        for number in UInt64(1)..<1_024 {
            _ = table.observe(beacon(number), from: Self.loopback, at: .milliseconds(Int64(number)))
        }
        #expect(table.count == 1_024 && table.evictions == 0)
        _ = table.observe(beacon(5_000), from: Self.loopback, at: .seconds(2))
        #expect(table.evictions == 8 && table.count == 1_017)
        // The eight heard least recently went, nothing else.
        #expect((1...8).allSatisfy { table[NodeNumber(rawValue: UInt64($0))!] == nil })
        #expect(table[NodeNumber(rawValue: 9)!] != nil)
        for number in UInt64(10_000)..<20_000 { _ = table.observe(beacon(number), from: Self.loopback, at: .seconds(3)) }
        #expect(table[real.number]?.heardCount == 2, "outlasted 10,000 inventions")
        #expect(table.count <= 1_024)
    }
}
