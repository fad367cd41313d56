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

    @Test func oneAddressGetsItsShareOnly() {
        var directory = directory()
        let observations = (1...6).map { directory.observe(beacon($0), from: 0x0A00_0001, at: .zero) }
        #expect(observations == [.new, .new, .new, .new, .refused, .refused])
        // Another address still has room; known numbers still refresh.
        #expect(directory.observe(beacon(7), from: 0x0A00_0002, at: .zero) == .new)
        #expect(directory.count == 5)
    }

    @Test func aFullTableMakesRoomOnlyByForgettingAFailingEntry() {
        var directory = directory()
        for number in UInt64(1)...8 { _ = directory.observe(beacon(number), from: UInt32(number), at: .zero) }
        #expect(directory.observe(beacon(9), from: 9, at: .seconds(1)) == .refused)
        // Number 3's dials failed twice, 5's once: 3 goes first, then 5.
        directory.scheduleRedial(NodeNumber(rawValue: 3)!, at: .seconds(1))
        directory.scheduleRedial(NodeNumber(rawValue: 3)!, at: .seconds(2))
        directory.scheduleRedial(NodeNumber(rawValue: 5)!, at: .seconds(2))
        #expect(directory.observe(beacon(9), from: 9, at: .seconds(3)) == .new)
        #expect(directory[NodeNumber(rawValue: 3)!] == nil && directory[NodeNumber(rawValue: 5)!] != nil)
        #expect(directory.observe(beacon(10), from: 10, at: .seconds(3)) == .new)
        #expect(directory[NodeNumber(rawValue: 5)!] == nil)
        #expect(directory.observe(beacon(11), from: 11, at: .seconds(3)) == .refused)
        #expect(directory.evictions == 2 && directory.count == 8)
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
