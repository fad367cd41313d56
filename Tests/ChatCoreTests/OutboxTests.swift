import ChatCore
import Testing

@Suite struct OutboxTests {
    let alice = NodeNumber(rawValue: 1)!
    let bob = NodeNumber(rawValue: 2)!
    let carol = NodeNumber(rawValue: 3)!

    func dm(_ n: UInt64, to target: NodeNumber) -> P2PPayload {
        P2PPayload(type: .directMessage, messageId: MessageID(millis: 1_732_147_200_000 + Int64(n), random: (n, n)),
                   senderNumber: alice, senderNickname: "alice", content: "m\(n)", timestamp: 1_732_147_200_000, targetNumber: target)
    }

    @Test func backoffDoublesToThirtySeconds() {
        #expect((1...8).map(Outbox.backoff(afterAttempts:)) == [1, 2, 4, 8, 16, 30, 30, 30].map(Duration.seconds))
    }

    @Test func dueAtOnceThenRetriedWithBackoffUntilAcknowledged() {
        var outbox = Outbox()
        let frame = dm(1, to: bob)
        outbox.enqueue(frame, at: .zero)
        #expect(outbox.entries[frame.messageId]?.state == .queued)
        #expect(outbox.due(at: .zero, reachable: [bob]) == [frame])
        #expect(outbox.entries[frame.messageId]?.state == .sent)
        #expect(outbox.due(at: .milliseconds(999), reachable: [bob]).isEmpty)
        #expect(outbox.due(at: .seconds(1), reachable: [bob]) == [frame])
        #expect(outbox.due(at: .milliseconds(2999), reachable: [bob]).isEmpty)
        #expect(outbox.due(at: .seconds(3), reachable: [bob]) == [frame])
        #expect(outbox.nextDue == .seconds(7))
        #expect(outbox.acknowledge(frame.messageId) != nil)
        #expect(outbox.due(at: .seconds(100), reachable: [bob]).isEmpty)
        #expect(outbox.acknowledge(frame.messageId) == nil)
        #expect(outbox.nextDue == nil)
    }

    @Test func unreachablePeersWaitAndGetEverythingOnReconnect() {
        var outbox = Outbox()
        outbox.enqueue(dm(2, to: bob), at: .zero)
        outbox.enqueue(dm(1, to: bob), at: .zero)
        outbox.enqueue(dm(3, to: carol), at: .zero)
        #expect(outbox.due(at: .zero, reachable: [carol]).map(\.content) == ["m3"])
        #expect(outbox.due(at: .seconds(50), reachable: [bob]).map(\.content) == ["m1", "m2"])  // oldest id first
        outbox.peerReachable(bob, at: .seconds(51))
        #expect(outbox.due(at: .seconds(51), reachable: [bob]).map(\.content) == ["m1", "m2"])
    }

    @Test func eachPeersWaitingListFollowsItsEntries() {
        var outbox = Outbox()
        for n: UInt64 in 1...3 { outbox.enqueue(dm(n, to: bob), at: .zero) }
        outbox.enqueueSent(dm(4, to: carol), at: .zero)
        #expect(outbox.waiting(for: bob) == [dm(1, to: bob), dm(2, to: bob), dm(3, to: bob)].map(\.messageId))
        #expect(outbox.acknowledge(dm(2, to: bob).messageId) != nil)
        #expect(outbox.waiting(for: bob) == [dm(1, to: bob), dm(3, to: bob)].map(\.messageId))
        let frames = outbox.dueFrames(at: .zero, reachable: [bob, carol])
        #expect(frames.map(\.payload.content) == ["m1", "m3"], "carol's went out when it was queued; retried after 1 s")
        #expect(frames.allSatisfy { $0.first })
        #expect(outbox.dueFrames(at: .seconds(1), reachable: [bob, carol]).map { "\($0.payload.content) \($0.first)" } == ["m1 false", "m3 false", "m4 false"])
        #expect(outbox.drop(peer: bob) == [dm(1, to: bob), dm(3, to: bob)].map(\.messageId))
        #expect(outbox.waiting(for: bob).isEmpty)
        #expect(outbox.acknowledge(dm(4, to: carol).messageId) != nil)
        #expect(outbox.count == 0 && outbox.waiting(for: carol).isEmpty)
        // A peer with nothing left is forgotten: a new DM starts a new list.
        outbox.enqueue(dm(5, to: carol), at: .seconds(2))
        #expect(outbox.due(at: .seconds(2), reachable: [carol]).map(\.content) == ["m5"])
    }

    @Test func enqueueIsIdempotentAndDropRemovesOnePeer() {
        var outbox = Outbox()
        outbox.enqueue(dm(1, to: bob), at: .zero)
        _ = outbox.due(at: .zero, reachable: [bob])
        outbox.enqueue(dm(1, to: bob), at: .seconds(5))
        #expect(outbox.entries.values.first?.attempts == 1)
        outbox.enqueue(dm(2, to: carol), at: .zero)
        #expect(outbox.drop(peer: bob) == [dm(1, to: bob).messageId])
        #expect(outbox.count == 1)
    }
}
