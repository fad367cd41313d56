import ChatCore
import Testing
@testable import ChatNode

/// A catch-up reply through the pure core: merged only if it answers the
/// request outstanding, planned without touching the catch-up state, and
/// the cursor moves only when the page is adopted.
@Suite struct NodeCoreCatchUpTests {
    typealias F = NodeCoreFixture

    /// Alice's core once bob linked and was asked (request `id(100)`).
    static func asking() -> NodeCore {
        var core = F.core()
        let ask = core.catchUp.peerLinked(F.bob)!
        _ = core.catchUp.send(core.catchUp.request(for: ask, id: F.id(99)), to: F.bob, id: F.id(100))
        return core
    }

    static func reply(to request: MessageID, entries: [P2PPayload], more: Bool = false) -> P2PPayload {
        var reply = P2PPayload(type: .historyReply, messageId: F.id(101), senderNumber: F.bob, senderNickname: "bob",
                               timestamp: F.now, targetNumber: F.alice.number, refId: request)
        reply.messages = entries
        reply.more = more
        reply.catchUp = CatchUpCursor(epoch: "e1", seq: 40)
        return reply
    }

    @Test func aReplyToTheRequestOutstandingIsMergedWithItsCursorAndChangesNothing() {
        let core = Self.asking()
        let before = F.fingerprint(core)
        let input = F.input([Self.reply(to: F.id(100), entries: [F.publicMessage(1, by: F.carol), F.publicMessage(2, by: F.carol)])])

        let step = core.plan(input)
        #expect(step.plan.changes.messages.map(\.id) == [F.id(1), F.id(2)])
        #expect(step.plan.changes.settings[CatchUpState.key(F.bob)] == CatchUpCursor(epoch: "e1", seq: 40).stored,
                "the cursor is committed with the page")
        #expect(step.plan.catchUpPages.map(\.fresh) == [2])
        #expect(step.plan.effects.contains { if case .caughtUp = $0 { true } else { false } })
        #expect(step.plan.effects.contains { if case .spread(let frames) = $0 { frames.count == 2 } else { false } })

        #expect(F.fingerprint(core) == before, "planning a reply changed the catch-up state")
        #expect(core.catchUp.outstanding[F.bob]?.answered == false)
        #expect(F.fingerprint(core.plan(input).plan) == F.fingerprint(step.plan))
    }

    @Test func theCarrierStopsTheTimeoutAndAdoptionMovesTheCursor() {
        var core = Self.asking()
        let step = core.plan(F.input([Self.reply(to: F.id(100), entries: [F.publicMessage(1, by: F.carol)])]))
        core.planned(step.plan)
        #expect(core.catchUp.outstanding[F.bob]?.answered == true, "the reply arrived: its timeout no longer applies")
        #expect(core.catchUp.timedOut(F.id(100), from: F.bob) == .ignored)

        core.adopt(step.scratch, plan: step.plan, added: 1, outside: [])
        let page = step.plan.catchUpPages[0]
        _ = core.catchUp.adopt(page)
        #expect(core.catchUp.cursors[F.bob] == CatchUpCursor(epoch: "e1", seq: 40))
        #expect(core.catchUp.outstanding[F.bob] == nil)
        #expect(core.router.publicChat.messages.map(\.id) == [F.id(1)])
    }

    @Test func anUnsolicitedReplyIsRefusedAndCounted() {
        let core = Self.asking()
        let step = core.plan(F.input([Self.reply(to: F.id(7), entries: [F.publicMessage(1, by: F.carol)])]))
        #expect(step.plan.changes.messages.isEmpty)
        #expect(step.plan.catchUpPages.isEmpty)
        #expect(step.plan.counted.catchUpUnsolicited == 1)

        let nobodyAsked = F.core().plan(F.input([Self.reply(to: F.id(100), entries: [])]))
        #expect(nobodyAsked.plan.counted.catchUpUnsolicited == 1)
    }

    @Test func aSecondReplyInTheSameStepOrTheStepBelowIsUnsolicited() {
        let core = Self.asking()
        let reply = Self.reply(to: F.id(100), entries: [F.publicMessage(1, by: F.carol)])
        let twice = core.plan(F.input([reply, reply]))
        #expect(twice.plan.catchUpPages.count == 1)
        #expect(twice.plan.counted.catchUpUnsolicited == 1)

        let first = core.plan(F.input([reply]))
        let ahead = core.assuming(first.scratch).plan(F.input([reply]), after: first.plan)
        #expect(ahead.plan.catchUpPages.isEmpty, "the step below answered it; its commit has not returned")
    }

    /// Under a flood a reply can queue past its timeout: the reply to the
    /// request given up is still merged (its messages stored and shown),
    /// but its cursor is not committed: the round moved on from it.
    @Test func aReplyAfterItsTimeoutIsMergedWithoutItsCursor() {
        var core = Self.asking()
        #expect(core.catchUp.timedOut(F.id(100), from: F.bob) != .ignored)
        let step = core.plan(F.input([Self.reply(to: F.id(100), entries: [F.publicMessage(1, by: F.carol)], more: true)]))
        #expect(step.plan.changes.messages.map(\.id) == [F.id(1)])
        #expect(step.plan.changes.settings[CatchUpState.key(F.bob)] == nil, "no cursor from a late page")
        #expect(step.plan.counted.catchUpUnsolicited == 0)
        core.planned(step.plan)
        let again = core.plan(F.input([Self.reply(to: F.id(100), entries: [F.publicMessage(2, by: F.carol)])]))
        #expect(again.plan.changes.messages.isEmpty && again.plan.counted.catchUpUnsolicited == 1, "merged once")
    }
}
