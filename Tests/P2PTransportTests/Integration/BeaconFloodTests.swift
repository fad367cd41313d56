import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// A flood of beacons announcing invented identities (all pointing at a
/// listener that accepts and never speaks) costs the node a bounded number
/// of descriptors and table entries, each refusal is counted, and a real
/// peer arriving meanwhile still links and chats.
@Suite(.realTime) struct BeaconFloodTests {
    @Test func aFloodOfInventedIdentitiesCostsBoundedDescriptorsAndRealPeersStillLink() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        var configuration = TestNetwork.configuration(discoveryPort: discoveryPort)
        configuration.deadPeerTimeout = .seconds(5)
        configuration.limits.maxPendingDials = 8
        configuration.limits.maxPendingDialsPerAddress = 4
        configuration.limits.maxAnnouncements = 64
        configuration.limits.maxAnnouncementsPerAddress = 16
        let alice = try await TestNode.started(1_501, "alice", configuration: configuration)
        let attacker = try HoldingListener(address: 0x7F00_0002)
        let forger = BeaconSender(discoveryPort: discoveryPort, source: 0x7F00_0002)
        let attackerPort = attacker.port

        // 3,000 invented identities over about 2.5 s, so that both the
        // numbers alice dials at once and those she dials after the
        // fallback delay come due while the flood lasts.
        let flood = Task {
            for index in 0..<3_000 {
                let identity = NodeIdentity(number: NodeNumber(rawValue: UInt64.random(in: 1...(1 << 52)))!, nickname: "fake\(index)")
                forger.send(DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: attackerPort, instanceId: InstanceID.make()))
                if index % 20 == 19 { try? await Task.sleep(for: .milliseconds(15)) }
            }
        }
        var bob: TestNode?
        var mostPendingDials = 0
        var mostAnnouncements = 0
        let started = ContinuousClock.now
        while !flood.isCancelled, ContinuousClock.now - started < .seconds(3) {
            mostPendingDials = max(mostPendingDials, await alice.service.pendingDialCountForTesting())
            mostAnnouncements = max(mostAnnouncements, await alice.service.announcementCountForTesting())
            if bob == nil, ContinuousClock.now - started > .milliseconds(500) {
                bob = try await TestNode.started(1_502, "bob", configuration: configuration)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        await flood.value
        let honest = try #require(bob)

        // The flood did make alice dial (else this proves nothing) ...
        #expect(attacker.acceptedCount > 0)
        // ... but never more than the caps at once, and the table stayed bounded.
        #expect(mostPendingDials <= 8, "\(mostPendingDials) dials under way at once")
        #expect(mostAnnouncements <= 64, "\(mostAnnouncements) announcements held")
        let counters = await alice.service.counters()
        #expect(counters.deferredDials > 0)
        #expect(counters.refusedAnnouncements > 0)
        // The honest peer linked and chats.
        #expect(await waitUntil { await fullMesh([alice, honest]) })
        #expect(await honest.service.broadcast(honest.publicMessage("through the flood")) == 1)
        #expect(await waitUntil { alice.receivedTexts.contains("through the flood") })
        attacker.close()
        await alice.service.stop()
        await honest.service.stop()
    }
}
