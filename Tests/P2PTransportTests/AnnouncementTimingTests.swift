import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// `AnnouncementTable.timings` is what the wake plan and the size count
/// read instead of the entries themselves (no string storage touched per
/// entry): it must mirror the entries after every kind of change, or a
/// dial or an expiry would be planned from stale times.
@Suite struct AnnouncementTimingTests {
    private func beacon(_ number: UInt64, instance: String) -> DiscoveryBeacon {
        DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: "a peer called \(number)"),
                        tcpPort: 4_000, instanceId: instance)
    }

    private func mirrors(_ table: AnnouncementTable) -> Bool {
        table.timings == table.entries.mapValues(Timing.init)
    }

    @Test func timingsMirrorTheEntriesThroughEveryChange() {
        var table = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1), maxEntries: 16, maxPerAddress: 12)
        var random = Draws(state: 2_911)
        var instances: [UInt64: String] = [:]
        var now = Duration.zero
        for step in 0..<4_000 {
            now += .milliseconds(Int(random.next() % 300))
            let number = 1 + random.next() % 24
            let address: UInt32 = 0x0A00_0001 + UInt32(random.next() % 3)
            switch random.next() % 8 {
            case 0, 1, 2:
                let instance = instances[number] ?? InstanceID.make()
                instances[number] = instance
                _ = table.observe(beacon(number, instance: instance), from: address, at: now)
            case 3: instances[number] = nil  // the next beacon is a restart
            case 4: table.linked(NodeNumber(rawValue: number)!)
            case 5: table.scheduleRedial(NodeNumber(rawValue: number)!, at: now, jitter: 1)
            case 6: table.redialNow(NodeNumber(rawValue: number)!, at: now)
            default:
                if random.next() % 4 == 0 {
                    table.expire(at: now, timeout: .seconds(2), remember: random.next() % 2 == 0)
                } else if let instance = instances[number] {
                    table.departLinked(NodeNumber(rawValue: number)!, instanceId: instance, at: now)
                }
            }
            #expect(mirrors(table), "after step \(step)")
            if !mirrors(table) { return }
        }
        #expect(table.evictions > 0, "the run made room by evicting too")
        #expect(!table.timings.isEmpty)
    }
}

/// A seeded generator (an LCG's high bits): the same run every time.
private struct Draws {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
}
