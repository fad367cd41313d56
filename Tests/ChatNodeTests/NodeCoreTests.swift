import ChatCore
import Testing
@testable import ChatNode

/// The node's pure core: a step's plan from a state and an input, with no
/// actor, store, socket or clock. Planning changes nothing (the same state
/// plans the same step twice, and is the same after); a failed commit is
/// a plan never adopted, so a retry plans the same thing; an adopted plan
/// is what the models hold.
@Suite struct NodeCoreTests {
    typealias F = NodeCoreFixture

    @Test func aPublicMessagePlansItsRowAndItsReportAndChangesNothing() {
        let core = F.core()
        let before = F.fingerprint(core)
        let input = F.input([F.publicMessage(1)])

        let first = core.plan(input)
        #expect(first.plan.changes.messages.map(\.id) == [F.id(1)])
        #expect(first.plan.changes.pooled == [F.id(1)], "bob is unknown to the ledger: his message goes to the pool")
        #expect(first.plan.effects.contains { if case .report(.message(let m)) = $0 { m.id == F.id(1) } else { false } })
        #expect(!first.plan.effects.contains { if case .acknowledge = $0 { true } else { false } }, "public: no ack")
        #expect(first.scratch.publicChat.messages.map(\.id) == [F.id(1)], "the step's copy holds it")

        #expect(F.fingerprint(core) == before, "planning changed the state it planned from")
        #expect(core.router.publicChat.messages.isEmpty)
        let second = core.plan(input)
        #expect(F.fingerprint(second.plan) == F.fingerprint(first.plan), "the same state and input planned differently")
    }

    @Test func aFailedCommitLeavesTheStateAsItWasAndTheRetryPlansTheSame() {
        var core = F.core()
        let input = F.input([F.publicMessage(1), F.dm(2)])
        let before = F.fingerprint(core)
        let planned = core.plan(input)
        // The carrier's part between plan and commit; then the commit fails
        // and nothing is adopted.
        core.planned(planned.plan)
        #expect(F.fingerprint(core) == before, "a plan whose commit failed left a trace")

        let retry = core.plan(input)
        #expect(F.fingerprint(retry.plan) == F.fingerprint(planned.plan))
        #expect(retry.plan.changes.messages.count == 2)
    }

    @Test func afterAdoptionTheModelsHoldThePlanAndTheCountsJoin() {
        var core = F.core()
        let input = F.input([F.publicMessage(1)])
        let step = core.plan(input)
        core.adopt(step.scratch, plan: step.plan, added: 1, outside: [])

        #expect(core.router.publicChat.messages.map(\.id) == [F.id(1)])
        #expect(core.router.publicChat.unreadCount == 1, "no room is being read")
        #expect(core.counters.stored == 1)

        // The sender retries (its ack was lost): now stored, a duplicate.
        let again = core.plan(F.input([F.publicMessage(1)], stored: [F.id(1)]))
        #expect(again.plan.changes.messages.isEmpty)
        #expect(again.plan.counted.duplicates == 1)
        #expect(again.plan.changes.isEmpty)
    }

    @Test func aMessageInTheRoomBeingReadIsReadUpToIt() {
        var core = F.core()
        core.activeRoom = .publicRoom
        _ = core.change(.activate(.publicRoom, previous: nil))
        let step = core.plan(F.input([F.publicMessage(1)]))
        #expect(step.plan.changes.readMarkers[.publicRoom] != nil)
        #expect(step.scratch.publicChat.unreadCount == 0)
    }

    @Test func aDMRequestOpensTheConversationAndIsAcknowledgedOnlyAfterTheCommit() {
        let core = F.core()
        let step = core.plan(F.input([F.dm(1)]))
        #expect(step.plan.changes.messages.map(\.id) == [F.id(1)])
        #expect(step.plan.changes.conversations[F.bob] == ConversationRow(nickname: "bob", state: .incomingRequest))
        let acks = step.plan.effects.compactMap { if case .acknowledge(let frame, let peer) = $0 { (frame.messageId, peer) } else { nil } }
        #expect(acks.count == 1 && acks.first?.0 == F.id(1) && acks.first?.1 == F.bob, "acknowledged after the commit, as an effect")
        #expect(core.router.directChat.conversation(with: F.bob) == nil, "the state has no conversation until adoption")
        #expect(step.scratch.directChat.state(with: F.bob) == .incomingRequest)
    }

    @Test func anAckMarksDeliveredOnlyAWaitingDMToThatPeer() {
        var core = F.core()
        let sent = P2PPayload(type: .directMessage, messageId: F.id(5), senderNumber: F.alice.number, senderNickname: "alice",
                              content: "hello", timestamp: F.now - 1_000, targetNumber: F.bob)
        core.outbox.enqueue(sent, at: .zero)
        func ack(_ ref: MessageID, from peer: NodeNumber) -> P2PPayload {
            P2PPayload(type: .ack, messageId: F.id(9), senderNumber: peer, senderNickname: "p", timestamp: F.now,
                       targetNumber: F.alice.number, refId: ref)
        }

        let step = core.plan(F.input([ack(F.id(5), from: F.bob)]))
        #expect(step.plan.changes.deliveries == [F.id(5): .delivered])
        #expect(step.plan.effects.contains { if case .delivered(F.id(5), F.bob) = $0 { true } else { false } })
        #expect(core.outbox.entries[F.id(5)] != nil, "the outbox lets go only when the effect runs, after the commit")

        #expect(core.plan(F.input([ack(F.id(5), from: F.carol)], from: F.carol)).plan.changes.deliveries.isEmpty,
                "another peer cannot acknowledge bob's DM")
        #expect(core.plan(F.input([ack(F.id(6), from: F.bob)])).plan.changes.deliveries.isEmpty, "nothing waits under that id")
    }

    @Test func aFileFrameIsANoticeOfThePlanNotSomethingPlanningDoes() {
        let core = F.core()
        let offer = P2PPayload(type: .fileOffer, messageId: F.id(3), senderNumber: F.bob, senderNickname: "bob",
                               timestamp: F.now, targetNumber: F.alice.number)
        let step = core.plan(F.input([offer]))
        #expect(step.plan.notices.count == 1)
        if case .file(let frame, let peer, _) = step.plan.notices.first {
            #expect(frame.messageId == F.id(3) && peer == F.bob)
        } else {
            Issue.record("expected a file notice, got \(step.plan.notices)")
        }
        #expect(step.plan.changes.isEmpty)
    }

    @Test func aStepPlannedOnTopOfOneCommittingCountsItsMessagesAsStored() {
        let core = F.core()
        let first = core.plan(F.input([F.publicMessage(1)]))
        // The lookup for the second step ran before the first one's commit.
        let second = core.assuming(first.scratch).plan(F.input([F.publicMessage(1), F.publicMessage(2)]), after: first.plan)
        #expect(second.plan.changes.messages.map(\.id) == [F.id(2)])
        #expect(second.plan.counted.duplicates == 1)
        #expect(core.router.publicChat.messages.isEmpty, "assuming is a copy")
    }

    /// A flood on a full disk: the step under commit ages messages out
    /// after the next was planned on top of it. The next step's unread
    /// report, said after the correction, must say the corrected count
    /// (it said the count before the ageing, and the screen kept it).
    @Test func aStepPlannedOnTopOfAnAgeingCommitReportsTheCorrectedCount() {
        var core = F.core()
        let first = core.plan(F.input([F.publicMessage(1), F.publicMessage(2), F.publicMessage(3)]))
        var next: PlannedStep? = core.assuming(first.scratch).plan(F.input([F.publicMessage(4)]), after: first.plan)
        core.adopt(first.scratch, plan: first.plan, added: 3, outside: [])
        var result = StoreCommitResult()
        result.added = [F.id(1), F.id(2), F.id(3)]
        result.agedOut = [.publicRoom: [F.id(1), F.id(2)]]
        result.unread = [.publicRoom: 1]
        let corrections = core.forgetAgedOut(result, next: &next)
        #expect(corrections.map { "\($0)" } == ["\(NodeEffect.emit(.unread(.publicRoom, count: 1)))"])
        let said = next!.plan.effects.compactMap { effect -> Int? in
            if case .report(.unreadChanged(.publicRoom, let count)) = effect { count } else { nil }
        }
        #expect(said == [2], "message 3 and the next step's message 4")
        #expect(next!.scratch.unreadCount(in: .publicRoom) == 2)
    }

    @Test func aRoomOpenedWhileAStepCommitsStaysOpenWhenTheStepIsAdopted() {
        var core = F.core()
        core.stepInFlight()
        let step = core.plan(F.input([F.publicMessage(1)]))
        // The reader opens the public room while the step commits.
        core.activeRoom = .publicRoom
        _ = core.change(.activate(.publicRoom, previous: nil))
        let outside = core.takeChangesInFlight(stillInFlight: false)
        #expect(outside == [.activate(.publicRoom, previous: nil)])
        core.adopt(step.scratch, plan: step.plan, added: 1, outside: outside)
        #expect(core.router.publicChat.messages.map(\.id) == [F.id(1)])
        #expect(core.router.publicChat.unreadCount == 0, "the adoption undid the activation")
        #expect(core.takeChangesInFlight(stillInFlight: false).isEmpty)
        _ = core.change(.deactivate(.publicRoom))
        #expect(core.takeChangesInFlight(stillInFlight: false).isEmpty, "no step in flight: nothing kept")
    }
}
