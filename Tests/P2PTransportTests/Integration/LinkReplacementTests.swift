import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// A link replaced by a newer one to the same peer loses no frame the node
/// was told was sent: unsealed frames move to the new link, and the old
/// link is read until its peer closes it (it once dropped what was in
/// flight: two chatter messages arrived 76 s late, by catch-up, at 50 hosts).
@Suite(.realTime) struct LinkReplacementTests {
    @Test func framesSentWhileTheLinkIsReplacedAllArriveOnce() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        // Bob has the lower number: he dials, and his second dial replaces
        // his first link (the newer of two same-side links survives).
        let (bobSeed, aliceSeed) = TestNetwork.orderedSeeds(from: 7_100)
        let alice = try await TestNode.started(aliceSeed, "alice", configuration: configuration)
        let bobLog = RecordingLogger()
        let bob = TestNode(bobSeed, "bob", configuration: configuration, logger: bobLog.logger(minimumLevel: .debug))
        try await bob.service.start()
        try #require(await waitUntil { await fullMesh([alice, bob]) })
        #expect(bob.number < alice.number)

        var told: [String] = []
        var replacedAt: Int?
        await bob.service.dialForTesting(port: await alice.service.listeningPort)
        // Send until well after the replacement, so frames are queued,
        // sealed and in flight on the old link while it happens; paced so
        // the receiver's frame budget is not what the test measures.
        let deadline = ContinuousClock.now + .seconds(10)
        var index = 0
        while ContinuousClock.now < deadline {
            let text = "m\(index)"
            if await bob.service.send(bob.directMessage(text, to: alice.number), to: alice.number) { told.append(text) }
            if replacedAt == nil, await bob.service.counters().duplicateLinks > 0 { replacedAt = index }
            if let replacedAt, index >= replacedAt + 200 { break }
            index += 1
            try await Task.sleep(for: .microseconds(500))
        }
        let (bobCounters, aliceCounters) = (await bob.service.counters(), await alice.service.counters())
        try #require(replacedAt != nil, "the second dial replaced the link: \(bobCounters) / \(aliceCounters) \(bobLog.records.map(\.message).suffix(30))")
        #expect(await waitUntil(within: .seconds(10)) { alice.receivedTexts.count >= told.count })
        #expect(Set(alice.receivedTexts) == Set(told), "every frame bob was told was sent arrived")
        #expect(alice.receivedTexts.count == told.count, "and once")
        for node in [alice, bob] {
            #expect(!node.log.events.contains { if case .peerLeft = $0 { true } else { false } }, "a replacement is silent")
        }
        #expect(await waitUntil { await alice.service.linkCountForTesting() == 1 })
        #expect(await waitUntil { await bob.service.linkCountForTesting() == 1 })
        for node in [alice, bob] { await node.service.stop() }
    }
}
