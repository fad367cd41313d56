import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// A newcomer is answered (PROTOCOL.md 2.3); a peer the announcement table
/// forgot to make room and hears again is not a newcomer. With more nodes
/// on one address than the table keeps for it (300 nodes on 127.0.0.1,
/// 128 kept), answering each of those made a storm of beacons. Driven by
/// hand on a service that is never started (answers go nowhere but are
/// counted) and a manual clock.
@Suite(.realTime) struct ReturningPeerAnswerTests {
    @Test func aPeerForgottenForRoomIsNotAnsweredWhenItComesBack() async {
        let clock = ManualClock()
        var configuration = P2PConfiguration()
        configuration.identityKey = TestNetwork.key(29_600)
        configuration.limits.maxAnnouncementsPerAddress = 2
        configuration.limits.maxAnnouncementsPerLoopbackAddress = 2
        let me = TestNetwork.identity(29_600, "me")
        let service = P2PService(identity: me, configuration: configuration, clock: clock)
        // Peers whose numbers are below ours: they dial us, we answer them.
        let peers = (1...40).map { TestNetwork.identity(29_600 + UInt64($0), "p\($0)") }.filter { $0.number < me.number }.prefix(4)
        #expect(peers.count == 4)
        func hear(_ peer: NodeIdentity) async {
            clock.advance(by: .seconds(1))  // past the gap between answers
            let beacon = DiscoveryBeacon(kind: .beacon, identity: peer, tcpPort: 41_000, instanceId: "i-\(peer.number)")
            await service.handleBeacon(beacon, from: IPv4Endpoint(address: 0x7F00_0001, port: 41_000))
        }
        func answers() async -> Int { await service.counters().answersBroadcast }
        let (a, b, c, d) = (peers[peers.startIndex], peers[peers.startIndex + 1], peers[peers.startIndex + 2], peers[peers.startIndex + 3])
        await hear(a)
        await hear(b)
        #expect(await answers() == 2)
        await hear(c)  // makes room: `a`, heard least recently, is forgotten
        #expect(await answers() == 3)
        #expect(await service.isAnnouncedForTesting(a.number) == false)
        await hear(a)  // back, with its count: no newcomer
        #expect(await service.isAnnouncedForTesting(a.number) == true)
        #expect(await answers() == 3)
        await hear(d)  // a real newcomer still is answered
        #expect(await answers() == 4)
    }
}
