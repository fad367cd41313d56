import ChatCore
import ChatNode
import Foundation
@testable import ChatApp
import Testing
import TestSupport

/// A DM held for a key change shows as held wherever its conversation is
/// read from the store (what a restarted client reads): the console's
/// `/history` and the full screen's room.
@Suite(.realTime) struct HeldDMDisplayTests {
    @Test func aHeldDMReadsAsHeldInTheConsoleAndOnTheFullScreen() async throws {
        let network = InMemoryNetwork()
        let bob = try await ConsoleKeyNoticeTests.keyed("bob", network)
        let alice = try await ConsoleKeyNoticeTests.keyed("alice", network)
        try await ConsoleKeyNoticeTests.joined(alice.number, bob.log)
        _ = try await bob.node.verify("alice", confirm: true)
        await alice.node.stop()
        try #require(await waitUntil("alice gone") { await bob.node.peers().isEmpty })
        let impostor = try await ConsoleKeyNoticeTests.keyed("alice", network)
        try await bob.log.first("keyChanged") { if case .keyChanged = $0 { true } else { nil } }
        let refusal: NodeError? = await {
            do throws(NodeError) {
                try await bob.node.sendDirect("for alice only", to: impostor.number)
                return nil
            } catch { return error }
        }()
        guard case .held(_, _, let id)? = refusal else {
            Issue.record("not held: \(String(describing: refusal))")
            return
        }

        let console = ReadingRuleTests.console(bob)
        let lines = await console.type("/history \(impostor.number)")
        #expect(lines.contains { $0.hasSuffix("bob: for alice only  · held") }, "\(lines)")

        let session = FullScreenSession(node: bob.node, identity: await bob.node.identity, locale: Locale(identifier: "en_US")) {}
        await session.perform([.open(.direct(impostor.number))])
        #expect(await session.state.view?.delivery[id] == .held)
        await bob.node.stop()
        await impostor.node.stop()
    }
}
