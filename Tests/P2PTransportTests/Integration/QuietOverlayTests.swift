import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Quiet links and held beacons on real services above the overlay's
/// threshold (loopback timings: keepalive 300 ms, dead peer 2 s, so a quiet
/// link pings every 1.8 s and waits 12 s): the links turn quiet, a hung peer
/// is still dropped within the quiet timeout, and a newcomer still links
/// within 2 s while the others hold the beacons they hear.
@Suite(.realTime) struct QuietOverlayTests {
    private func settledOverlay(port: Int, base: UInt64) async throws -> [TestNode] {
        let configuration = OverlayLinkTests.configuration(port: port)
        let nodes = try await (0..<6).asyncMap { try await TestNode.started(base + UInt64($0), "q\($0)", configuration: configuration) }
        #expect(await waitUntil("one connected overlay above the threshold", within: .seconds(40)) {
            for node in nodes where await node.service.overlayForTesting()?.isFullMesh != false { return false }
            return await OverlayLinkTests.connected(nodes)
        })
        return nodes
    }

    @Test func overlayLinksTurnQuietAndAHungPeerIsStillDropped() async throws {
        let nodes = try await settledOverlay(port: TestNetwork.discoveryPort(), base: 7_600)
        defer { Task { for node in nodes { await node.service.stop() } } }
        #expect(await waitUntil("every overlay link quiet", within: .seconds(20)) {
            for node in nodes {
                let links = await node.service.quietLinksForTesting()
                if links.overlay == 0 || links.quiet < links.overlay { return false }
            }
            return true
        })
        let hung = nodes[2]
        let peers = Set(await hung.service.connectedPeers().map(\.number))
        try #require(!peers.isEmpty)
        await hung.service.freezeForTesting()
        let frozenAt = ContinuousClock.now
        let dropped = await waitUntil("the hung node's peers drop it", within: .seconds(20)) {
            for node in nodes where peers.contains(node.number) {
                if await node.service.connectedPeers().contains(where: { $0.number == hung.number }) { return false }
            }
            return true
        }
        let took = ContinuousClock.now - frozenAt
        print("a hung peer on quiet links (quiet dead peer 12 s) dropped after \(took)")
        #expect(dropped)
        #expect(took > .seconds(4), "dropped after \(took): not on the stretched 4 s, the links were quiet")
    }

    @Test func aNewcomerStillLinksWithinTwoSeconds() async throws {
        let port = TestNetwork.discoveryPort()
        let nodes = try await settledOverlay(port: port, base: 7_700)
        defer { Task { for node in nodes { await node.service.stop() } } }
        #expect(await waitUntil("every node idle, holding what it hears", within: .seconds(20)) {
            for node in nodes where await !node.service.holdsDiscoveryForTesting() { return false }
            return true
        })
        let newcomer = TestNode(7_799, "late", configuration: OverlayLinkTests.configuration(port: port))
        let started = ContinuousClock.now
        try await newcomer.service.start()
        defer { Task { await newcomer.service.stop() } }
        // The settled nodes are idle: they hold what they hear for up to
        // 150 ms (`discoveryHold`), and still all hear the newcomer in time.
        let heard = await waitUntil("every node heard the newcomer", within: .seconds(10)) {
            for node in nodes where await !node.service.isAnnouncedForTesting(newcomer.number) { return false }
            return true
        }
        let heardAfter = ContinuousClock.now - started
        let linked = await waitUntil("the newcomer linked", within: .seconds(10)) {
            await !newcomer.service.connectedPeers().isEmpty
        }
        let took = ContinuousClock.now - started
        print("a newcomer among 6 overlay nodes holding beacons: heard by all after \(heardAfter), linked after \(took)")
        #expect(heard && linked)
        #expect(heardAfter < .seconds(2), "heard by all after \(heardAfter)")
        #expect(took < .seconds(2), "linked after \(took)")
    }
}
