import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Where the answer to a newcomer goes: to it alone only where nothing
/// else can share its address's discovery port.
@Suite struct AnswerRouteTests {
    private let lan = IPv4Endpoint(address: 0x0AE8_0005, port: 47_474) // 10.232.0.5
    private let newcomer = TestNetwork.key(9_001).nodeNumber
    private let other = TestNetwork.key(9_002).nodeNumber

    private func beacon(_ number: NodeNumber, port: Int) -> DiscoveryBeacon {
        DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: number, nickname: "n\(number.shortTag)"),
                        tcpPort: port, instanceId: "i\(number.shortTag)")
    }

    private func table(_ heard: [(NodeNumber, UInt32)]) -> AnnouncementTable {
        var table = AnnouncementTable(backoffBase: .milliseconds(250), backoffCap: .seconds(15))
        for (number, address) in heard { _ = table.observe(beacon(number, port: 40_000), from: address, at: .seconds(1)) }
        return table
    }

    @Test func aNewcomerAloneAtItsLANAddressIsAnsweredAlone() {
        let heard = table([(newcomer, lan.address), (other, 0x0AE8_0006)])
        #expect(AnswerRoute.choose(source: lan, number: newcomer, ownAddresses: [0x0AE8_0001], announcements: heard) == .unicast)
    }

    @Test func loopbackIsAlwaysBroadcast() {
        let local = IPv4Endpoint(address: 0x7F00_0001, port: 47_474)
        #expect(AnswerRoute.choose(source: local, number: newcomer, ownAddresses: [], announcements: table([(newcomer, local.address)])) == .broadcast)
    }

    /// Another node of this host: its datagrams come from an address our own beacons come back from.
    @Test func thisHostsOwnAddressIsBroadcast() {
        #expect(AnswerRoute.choose(source: lan, number: newcomer, ownAddresses: [lan.address], announcements: table([(newcomer, lan.address)])) == .broadcast)
    }

    /// Two nodes known at one address share its discovery port: a unicast datagram would reach only one.
    @Test func anAddressWithAnotherKnownNodeIsBroadcast() {
        let heard = table([(newcomer, lan.address), (other, lan.address)])
        #expect(AnswerRoute.choose(source: lan, number: newcomer, ownAddresses: [], announcements: heard) == .broadcast)
    }
}
