import ChatCore
import Testing
@testable import ChatNode

/// The asking side of catch-up as a value, with no node, store, socket or
/// clock: which replies are accepted, that planning one changes nothing,
/// and what the node's awaits may interleave (a timeout while a page
/// commits, a cursor read while one commits).
@Suite struct CatchUpStateTests {
    static let a = NodeNumber(rawValue: 1)!
    static let b = NodeNumber(rawValue: 2)!

    static func id(_ n: UInt64) -> MessageID { MessageID(millis: 1_732_147_200_000 + Int64(n), random: (n, n)) }

    static func reply(to id: MessageID?, from peer: NodeNumber = a, cursor: CatchUpCursor? = CatchUpCursor(epoch: "e1", seq: 200),
                      more: Bool = false) -> P2PPayload {
        var reply = P2PPayload(type: .historyReply, messageId: Self.id(99), senderNumber: peer, senderNickname: "a",
                               timestamp: 1_732_147_200_000, refId: id)
        reply.catchUp = cursor
        reply.more = more
        reply.messages = []
        return reply
    }

    /// `a` linked and was sent its first request, under `id(1)`.
    static func asking() -> CatchUpState {
        var state = CatchUpState()
        let ask = state.peerLinked(a)!
        _ = state.send(state.request(for: ask, id: id(0)), to: a, id: id(1))
        return state
    }

    @Test func aReplyIsAcceptedOnlyForTheRequestOutstanding() {
        var state = CatchUpState()
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: []) == nil, "nothing asked")
        state = Self.asking()
        #expect(state.planReply(Self.reply(to: Self.id(7)), from: Self.a, answeredEarlier: []) == nil, "another id")
        #expect(state.planReply(Self.reply(to: nil), from: Self.a, answeredEarlier: []) == nil, "no id")
        #expect(state.planReply(Self.reply(to: Self.id(1), from: Self.b), from: Self.b, answeredEarlier: []) == nil,
                "the right id from a peer not asked")
        let page = state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: [])
        #expect(page?.request.id == Self.id(1))
        #expect(page?.cursor == CatchUpCursor(epoch: "e1", seq: 200))
        #expect(page?.next == nil, "the peer has no more")
    }

    @Test func planningAReplyChangesNothing() {
        let state = Self.asking()
        let before = (state.outstanding, state.cursors, state.round.source)
        let first = state.planReply(Self.reply(to: Self.id(1), more: true), from: Self.a, answeredEarlier: [])
        let second = state.planReply(Self.reply(to: Self.id(1), more: true), from: Self.a, answeredEarlier: [])
        #expect(first != nil && first == second, "planned twice, the same plan")
        #expect(state.outstanding == before.0 && state.cursors == before.1 && state.round.source == before.2)
        #expect(state.outstanding[Self.a]?.answered == false, "its timeout still applies until the step goes on")
    }

    /// A second copy of the reply, in the same step or the step planned
    /// before it (whose commit has not returned), answers nothing.
    @Test func aDuplicateReplyInTheSameOrThePreviousStepIsRefused() {
        let state = Self.asking()
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: [Self.id(1)]) == nil)
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: [Self.id(2)]) != nil,
                "another request's page does not count")
    }

    /// A peer may send any cursor: one we could not store or ask from again
    /// is dropped, and the chain ends with that page even if it says more.
    @Test func aCursorBeyondItsCapsEndsTheChain() {
        let state = Self.asking()
        let longEpoch = String(repeating: "e", count: CatchUpCursor.maxEpochBytes + 1)
        for cursor in [CatchUpCursor(epoch: longEpoch, seq: 5), CatchUpCursor(epoch: "e1", seq: -1), nil] {
            let page = state.planReply(Self.reply(to: Self.id(1), cursor: cursor, more: true), from: Self.a, answeredEarlier: [])
            #expect(page != nil, "the page itself is merged")
            #expect(page?.cursor == nil && page?.next == nil)
        }
        let longest = CatchUpCursor(epoch: String(repeating: "e", count: CatchUpCursor.maxEpochBytes), seq: 0)
        let page = state.planReply(Self.reply(to: Self.id(1), cursor: longest, more: true), from: Self.a, answeredEarlier: [])
        #expect(page?.cursor == longest && page?.next?.cursor == longest, "at the cap it is kept")
    }

    /// The node plans a step, then awaits (keys, the next input, the
    /// commit): a timeout that fires meanwhile must not give up a request
    /// whose reply is on its way to the store.
    @Test func aTimeoutWhileThePageCommitsIsIgnored() {
        var state = Self.asking()
        var unplanned = state
        let page = state.planReply(Self.reply(to: Self.id(1), more: true), from: Self.a, answeredEarlier: [])!
        state.pagesPlanned([page])
        #expect(state.timedOut(Self.id(1), from: Self.a) == .ignored)
        #expect(state.isOutstanding(page.request, for: Self.a), "still ours until adopted")
        // Not carried on (no step holds the reply): the timeout gives up, and
        // with no one else linked the same peer is asked again.
        #expect(unplanned.timedOut(Self.id(1), from: Self.a) == .gaveUp(next: CatchUpAsk(peer: Self.a, mode: .full)))
        #expect(unplanned.outstanding[Self.a] == nil)
        #expect(unplanned.timedOut(Self.id(1), from: Self.a) == .ignored, "given up once")
    }

    /// Under a flood every reply can queue past the timeout: a reply to the
    /// request given up last is merged once, without moving the cursor or
    /// asking for more (the round moved on), even beside the reply to the
    /// request that replaced it; a second copy, or a reply to an older
    /// request, answers nothing.
    @Test func aLateReplyToTheRequestGivenUpIsMergedOnce() {
        var state = Self.asking()
        #expect(state.timedOut(Self.id(1), from: Self.a) == .gaveUp(next: CatchUpAsk(peer: Self.a, mode: .full)))
        _ = state.send(state.request(for: CatchUpAsk(peer: Self.a, mode: .full), id: Self.id(0)), to: Self.a, id: Self.id(2))
        let late = state.planReply(Self.reply(to: Self.id(1), more: true), from: Self.a, answeredEarlier: [])
        #expect(late?.request.id == Self.id(1))
        #expect(late?.cursor == nil && late?.next == nil, "merged only: the round moved on")
        let current = state.planReply(Self.reply(to: Self.id(2)), from: Self.a, answeredEarlier: [Self.id(1)])
        #expect(current?.request.id == Self.id(2), "the request outstanding is answered beside it")
        state.pagesPlanned([late!, current!])
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: []) == nil, "once")
        #expect(state.adopt(late!) == .none)
        #expect(state.cursors[Self.a] == nil, "a late page does not move the cursor")
        #expect(state.isOutstanding(current!.request, for: Self.a), "the current request is still ours until adopted")
        // Two timeouts on: only the last one given up is kept.
        #expect(state.timedOut(Self.id(2), from: Self.a) == .ignored, "answered")
        var older = Self.asking()
        _ = older.timedOut(Self.id(1), from: Self.a)
        _ = older.send(older.request(for: CatchUpAsk(peer: Self.a, mode: .full), id: Self.id(0)), to: Self.a, id: Self.id(2))
        _ = older.timedOut(Self.id(2), from: Self.a)
        #expect(older.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: []) == nil, "an older one")
        #expect(older.planReply(Self.reply(to: Self.id(2)), from: Self.a, answeredEarlier: []) != nil)
        _ = older.peerLeft(Self.a)
        #expect(older.planReply(Self.reply(to: Self.id(2)), from: Self.a, answeredEarlier: []) == nil, "void once the peer left")
    }

    @Test func aTimeoutForARequestSinceReplacedIsIgnored() {
        var state = Self.asking()
        let first = state.outstanding[Self.a]!
        _ = state.send(first, to: Self.a, id: Self.id(2))  // asked again (a failed page, say)
        #expect(!state.isOutstanding(first, for: Self.a))
        #expect(state.timedOut(Self.id(1), from: Self.a) == .ignored)
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: []) == nil, "the old id is void")
        #expect(state.timedOut(Self.id(2), from: Self.a) != .ignored)
    }

    /// After the commit: the cursor moves on, the request is done, and the
    /// next page goes out from the new cursor at the round's size.
    @Test func adoptingAPageMovesTheCursorAndAsksForTheNext() {
        var state = Self.asking()
        var page = state.planReply(Self.reply(to: Self.id(1), more: true), from: Self.a, answeredEarlier: [])!
        page.fresh = 200
        state.pagesPlanned([page])
        let follow = state.adopt(page)
        let cursor = CatchUpCursor(epoch: "e1", seq: 200)
        #expect(follow == .send(CatchUpRequest(id: Self.id(1), cursor: cursor, limit: NodeLimits.catchUpPageSize), to: Self.a))
        #expect(state.cursors[Self.a] == cursor)
        #expect(state.outstanding[Self.a] == nil)
        #expect(state.timedOut(Self.id(1), from: Self.a) == .ignored, "a timeout after the commit finds nothing")
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: []) == nil, "a late copy is unsolicited")
    }

    @Test func theLastPageEndsTheRoundOrProbesTheNextPeer() {
        var state = Self.asking()
        #expect(state.peerLinked(Self.b) == nil, "b waits its turn")
        var page = state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: [])!
        page.fresh = 3
        #expect(state.adopt(page) == .ask(CatchUpAsk(peer: Self.b, mode: .probe)))
        let request = state.request(for: CatchUpAsk(peer: Self.b, mode: .probe), id: Self.id(5))
        #expect(request.limit == NodeLimits.catchUpProbeSize && request.cursor == nil, "first contact with b")
    }

    /// The node reads a cursor from the store (an await) before asking; a
    /// page committed meanwhile has moved it on, and the older read must
    /// not move it back.
    @Test func aCursorReadFromTheStoreDoesNotUndoOneCommittedMeanwhile() {
        var state = Self.asking()
        #expect(state.needsStoredCursor(Self.a))
        let page = state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: [])!
        _ = state.adopt(page)
        state.restoreCursor(CatchUpCursor(epoch: "e1", seq: 50), for: Self.a)
        #expect(state.cursors[Self.a] == CatchUpCursor(epoch: "e1", seq: 200))
        state.restoreCursor(CatchUpCursor(epoch: "e9", seq: 7), for: Self.b)
        #expect(state.cursors[Self.b] == CatchUpCursor(epoch: "e9", seq: 7))
        #expect(!state.needsStoredCursor(Self.b))
    }

    @Test func aPeerThatLeavesTakesItsRequestWithIt() {
        var state = Self.asking()
        #expect(state.peerLinked(Self.b) == nil)
        #expect(state.peerLeft(Self.a) == CatchUpAsk(peer: Self.b, mode: .full), "the gap is not covered yet")
        #expect(state.outstanding[Self.a] == nil)
        #expect(state.planReply(Self.reply(to: Self.id(1)), from: Self.a, answeredEarlier: []) == nil)
    }

    /// The peer left and linked again while its page committed, and was
    /// asked anew: the old page's commit moves the cursor but leaves the
    /// new request outstanding (its reply is accepted) and the round alone.
    @Test func aPageCommittedAfterItsRequestWasReplacedLeavesTheNewOneOutstanding() {
        var state = Self.asking()
        let page = state.planReply(Self.reply(to: Self.id(1), more: true), from: Self.a, answeredEarlier: [])!
        state.pagesPlanned([page])
        _ = state.peerLeft(Self.a)
        let ask = state.peerLinked(Self.a)!
        _ = state.send(state.request(for: ask, id: Self.id(2)), to: Self.a, id: Self.id(3))
        let source = state.round.source
        #expect(state.adopt(page) == .none)
        #expect(state.cursors[Self.a] == CatchUpCursor(epoch: "e1", seq: 200), "the committed cursor is kept")
        #expect(state.outstanding[Self.a]?.id == Self.id(3))
        #expect(state.round.source == source)
        #expect(state.planReply(Self.reply(to: Self.id(3)), from: Self.a, answeredEarlier: []) != nil, "the new reply is accepted")
    }
}
