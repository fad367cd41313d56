import ChatCore
import ChatNode
import Foundation
@testable import ChatApp
import Testing
import TestSupport

/// Issue 27: the full-screen client names peers in errors, never by their
/// 16-digit number (`waiting for 63001589724420 to accept your DM request`).
@Suite(.realTime) struct FullScreenErrorTests {
    @Test func errorsNamePeers() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 63_001_589_724_420, network)
        let bob = try await CommandExecutorTests.peer("bob", 63_001_589_724_421, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        let session = FullScreenSession(node: alice.node, identity: await alice.node.identity, locale: Locale(identifier: "en_US")) {}
        let linked = await session.describe(NodeError.chat(.awaitingAcceptance(peer: bob.number)))
        #expect(linked == "waiting for bob to accept your DM request")
        // A peer no one has heard of: its tag, not its number.
        let stranger = NodeNumber(rawValue: 63_001_589_724_999)!
        let unknown = await session.describe(NodeError.chat(.declinedByPeer(peer: stranger)))
        #expect(unknown == "#\(stranger.shortTag) declined your DM request")
        #expect(!unknown.contains("63001589724999"))
        await alice.node.stop()
        await bob.node.stop()
    }
}
