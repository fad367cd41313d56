import ChatCore
@testable import P2PTransport
import Testing

/// The announcement table's bounds, on the pure `AnnouncementTable`.
@Suite struct DirectoryLimitTests {
    private func beacon(_ number: UInt64, _ kind: DiscoveryBeacon.Kind = .beacon, instance: String = InstanceID.make()) -> DiscoveryBeacon {
        DiscoveryBeacon(kind: kind, identity: NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: "n\(number)"),
                        tcpPort: 4_000, instanceId: instance)
    }

    private func directory() -> AnnouncementTable {
        AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1), maxEntries: 8, maxPerAddress: 4)
    }

    @Test func oneAddressGetsItsShareOnlyAndANewcomerThereReplacesTheStalest() {
        var directory = directory()
        let address: UInt32 = 0x0A00_0001
        for number in UInt64(1)...4 { _ = directory.observe(beacon(number), from: address, at: .seconds(Int64(number))) }
        // The share is full: a fifth number from the address is recorded,
        // and the one heard least recently from there goes.
        #expect(directory.observe(beacon(5), from: address, at: .seconds(5)) == .new)
        #expect(directory[NodeNumber(rawValue: 1)!] == nil && directory.count == 4)
        // Another address's entries are never the price of this one's.
        #expect(directory.observe(beacon(7), from: 0x0A00_0002, at: .seconds(6)) == .new)
        #expect(directory.observe(beacon(6), from: address, at: .seconds(7)) == .new)
        #expect(directory[NodeNumber(rawValue: 7)!] != nil && directory[NodeNumber(rawValue: 2)!] == nil)
        #expect(directory.evictions == 2)
    }

    /// A flood of once-heard inventions from one address (10 per ms here)
    /// pushes a real node's first entry out within a few of them, but its
    /// next beacon (its start burst repeats at 100 ms) brings it back with
    /// its count, and from then on it outranks every invention: it is not
    /// evicted while they last, and the table says it is crowded (so first
    /// contacts wait for the ordered dial pass, most heard first).
    @Test func aRepeatingNodeOutlastsAFloodOfOnceHeardInventionsFromItsAddress() {
        var directory = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1), maxEntries: 1_024, maxPerAddress: 128)
        let address: UInt32 = 0x0A00_0001
        let newcomer = beacon(1 << 40, instance: "real")
        var invented: UInt64 = 1_000
        func flood(for millis: Int64, from start: Int64) {
            for tick in 0..<(millis * 10) {
                invented += 1
                _ = directory.observe(beacon(invented), from: address, at: .milliseconds(start) + .microseconds(tick * 100))
            }
        }
        flood(for: 100, from: 0)
        #expect(directory.observe(newcomer, from: address, at: .milliseconds(100)) == .new)
        #expect(directory.isCrowded(at: .milliseconds(100), window: .milliseconds(40)))
        flood(for: 100, from: 100)
        // Pushed out by a thousand newer inventions ...
        #expect(directory[newcomer.number] == nil)
        // ... and back at its second beacon, heard twice.
        #expect(directory.observe(newcomer, from: address, at: .milliseconds(200)) == .new)
        #expect(directory[newcomer.number]?.heardCount == 2)
        flood(for: 1_000, from: 200)
        #expect(directory[newcomer.number]?.heardCount == 2, "survived 10,000 inventions")
        #expect(directory.count == 128)
        #expect(!directory.isCrowded(at: .seconds(5), window: .milliseconds(40)))
    }

    @Test func anAnnouncementThatLedToAHandshakeIsNeverCrowdedOut() {
        var directory = directory()
        let address: UInt32 = 0x0A00_0001
        for number in UInt64(1)...4 { _ = directory.observe(beacon(number), from: address, at: .zero) }
        for number in UInt64(1)...4 { directory.linked(NodeNumber(rawValue: number)!) }
        directory.scheduleRedial(NodeNumber(rawValue: 2)!, at: .seconds(1))  // linked once, not now: still proven
        // A flood of inventions from the same address finds no room.
        for number in UInt64(100)..<200 {
            #expect(directory.observe(beacon(number), from: address, at: .seconds(2)) == .refused)
        }
        #expect((1...4).allSatisfy { directory[NodeNumber(rawValue: UInt64($0))!] != nil })
        #expect(directory.evictions == 0)
    }

    @Test func aFullTableForgetsTheEntryWhoseDialsFailedMostThenTheStalest() {
        var directory = directory()
        for number in UInt64(1)...8 { _ = directory.observe(beacon(number), from: UInt32(number), at: .seconds(Int64(number))) }
        // Number 3's dials failed twice, 5's once: 3 goes first, then 5,
        // then (no failures left) the one heard least recently.
        directory.scheduleRedial(NodeNumber(rawValue: 3)!, at: .seconds(10))
        directory.scheduleRedial(NodeNumber(rawValue: 3)!, at: .seconds(11))
        directory.scheduleRedial(NodeNumber(rawValue: 5)!, at: .seconds(11))
        #expect(directory.observe(beacon(9), from: 9, at: .seconds(12)) == .new)
        #expect(directory[NodeNumber(rawValue: 3)!] == nil && directory[NodeNumber(rawValue: 5)!] != nil)
        #expect(directory.observe(beacon(10), from: 10, at: .seconds(12)) == .new)
        #expect(directory[NodeNumber(rawValue: 5)!] == nil)
        #expect(directory.observe(beacon(11), from: 11, at: .seconds(12)) == .new)
        #expect(directory[NodeNumber(rawValue: 1)!] == nil)
        #expect(directory.evictions == 3 && directory.count == 8)
    }

    @Test func aLinkedInstancesLeaveIsRememberedAndItsLateBeaconsIgnored() {
        var directory = directory()
        let instance = InstanceID.make()
        #expect(directory.observe(beacon(1, instance: instance), from: 1, at: .zero) == .new)
        directory.departLinked(NodeNumber(rawValue: 1)!, instanceId: instance, at: .zero)
        #expect(directory.observe(beacon(1, instance: instance), from: 1, at: .zero) == .departed)
        // Its next start is another instance: new again.
        #expect(directory.observe(beacon(1, instance: InstanceID.make()), from: 1, at: .zero) == .new)
    }

    @Test func dialCapsAreFittedToTheDescriptorLimit() {
        let limits = PeerLimits()
        #expect(DescriptorBudget.fitted(limits, toLimit: 1_024).maxLinks == 512)
        let small = DescriptorBudget.fitted(limits, toLimit: 256)
        #expect(small.maxLinks == 256 - 48 && small.maxPendingLinks == 128 && small.maxPendingDials == 96)
        let tiny = DescriptorBudget.fitted(limits, toLimit: 64)
        #expect(tiny.maxLinks == 16 && tiny.maxPendingLinks == 16 && tiny.maxPendingDials == 16)
        #expect(DescriptorBudget.fitted(limits, toLimit: nil) == limits)
    }
}
