import ChatCore
import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Beacons of a private group are sealed with the group secret
/// (`SealedBeacon`, whose format `SealedBeaconTests` checks); a node with a
/// secret ignores every datagram that does not open with its group's key,
/// so nodes of different groups never dial each other, and a node without
/// a secret does not even learn who they are.
@Suite(.realTime) struct GroupSecretBeaconTests {
    private static func secret(_ word: String) throws -> GroupSecret {
        try GroupSecret(fileContents: Array(word.utf8))
    }

    @Test func nodesOfDifferentGroupsNeverDialEachOther() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        var blue = TestNetwork.configuration(discoveryPort: discoveryPort)
        blue.groupSecret = try Self.secret("blue")
        var green = blue
        green.groupSecret = try Self.secret("green")
        let recording = RecordingLogger()
        let alice = TestNode(1_601, "alice", configuration: blue, logger: recording.logger())
        try await alice.service.start()
        let bob = try await TestNode.started(1_602, "bob", configuration: blue)
        let carol = try await TestNode.started(1_603, "carol", configuration: green)
        let dave = try await TestNode.started(1_604, "dave", configuration: TestNetwork.configuration(discoveryPort: discoveryPort))
        #expect(await waitUntil { await fullMesh([alice, bob]) })
        // Each blue node has heard several beacons of carol and dave ...
        #expect(await waitUntil {
            let heard = [await alice.service.counters().foreignBeacons, await bob.service.counters().foreignBeacons,
                         await carol.service.counters().foreignBeacons]
            return heard.allSatisfy { $0 >= 6 }
        })
        // ... and none of them caused a dial or an announcement: the blue
        // nodes dialled only each other, and the green one nobody. Dave,
        // without a secret, reads none of the group beacons: he announces
        // and dials none of alice, bob or carol.
        for node in [alice, bob] {
            let counters = await node.service.counters()
            #expect(counters.linksDialled <= 1, "\(counters)")
            #expect(await node.service.announcementCountForTesting() == 1)
        }
        #expect(await carol.service.counters().linksDialled == 0)
        #expect(await waitUntil { await dave.service.counters().foreignBeacons >= 6 })
        #expect(await dave.service.announcementCountForTesting() == 0)
        #expect(await dave.service.counters().linksDialled == 0)
        let carolsPeers = Set(await carol.service.connectedPeers().map(\.number))
        #expect(carolsPeers.isDisjoint(with: [alice.number, bob.number]))
        // Said once per address, though many beacons came.
        let warnings = recording.messages(at: .warning)
        #expect(warnings.count { $0.contains("a node with a different group secret at 127.0.0.1") } == 1, "\(warnings)")
        #expect(warnings.count { $0.contains("a node without a group secret at 127.0.0.1") } == 1, "\(warnings)")
        for node in [alice, bob, carol, dave] { await node.service.stop() }
    }
}
