import ChatCore
import ChatNode
import Testing
import TestSupport

/// A step that stores many messages tells the front end each room's unread
/// count once, as it is after the step, not once per message.
@Suite(.realTime) struct UnreadCoalescingTests {
    @Test func aBatchReportsItsRoomsUnreadCountOnce() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair()
        // Bob's disk is slow: while his first message commits, the rest
        // arrive and are stored together in his next step.
        await bob.faults.setCommitDelay(.milliseconds(500))
        let count = 10
        for index in 1...count { try await alice.node.sendPublic("m\(index)") }
        try await bob.log.first("unread \(count)") { if case .unread(.publicRoom, count) = $0 { true } else { nil } }
        let unread = bob.log.events.compactMap { if case .unread(.publicRoom, let n) = $0 { n } else { nil } }
        #expect(bob.messages().map(\.content) == (1...count).map { "m\($0)" })
        #expect(unread.count < count, "one unread event per message: \(unread)")
        #expect(unread == unread.sorted() && unread.last == count)
        #expect(await bob.node.rooms().first?.unread == count)
    }
}
