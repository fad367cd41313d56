import ChatCore
import ChatNode
import Testing
import TestSupport

/// The catch-up timeout waits on the node's injected clock: a peer that
/// never answers is given up when a manual clock passes the timeout. The
/// timeout here is an hour, so on the wall clock this test would fail.
@Suite(.realTime) struct CatchUpTimeoutClockTests {
    @Test func aSilentPeerIsGivenUpWhenTheNodesClockPassesTheTimeout() async throws {
        let clock = ManualClock()
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network, clock: clock,
                                       options: NodeOptions(catchUpTimeout: .seconds(3_600)))
        let silent = try await Mallory(on: network)
        try await alice.waitForPeers(1)
        let first = try await silent.request(from: alice.identity.number)
        #expect(await alice.node.statistics().catchUpTimeouts == 0)
        // Advanced until the timer has started waiting and the hour passed.
        try #require(await waitUntil("the request timed out on the manual clock") {
            if await alice.node.statistics().catchUpTimeouts == 1 { return true }
            clock.advance(by: .seconds(3_600))
            return false
        })
        // The only peer may just be slow: it is asked again, under a new id.
        func requests() -> [P2PPayload] {
            silent.log.events.compactMap {
                if case .received(let payload, alice.identity.number) = $0, payload.type == .historyRequest { payload } else { nil }
            }
        }
        try #require(await waitUntil("asked again") { requests().count == 2 })
        let requests = requests()
        #expect(requests[1].messageId != first.messageId)
        #expect(requests[1].limit == NodeLimits.catchUpPageSize)
    }
}
