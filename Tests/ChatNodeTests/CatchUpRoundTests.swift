import ChatCore
import Testing
@testable import ChatNode

/// The catch-up round's choices, step by step: one full chain from one
/// peer, the others probed, hand-over when the source leaves or is silent.
@Suite struct CatchUpRoundTests {
    static let a = NodeNumber(rawValue: 1)!
    static let b = NodeNumber(rawValue: 2)!
    static let c = NodeNumber(rawValue: 3)!

    /// A probe whose first pages hold only what we have (our cursor for that
    /// peer is stale) goes on to the page that holds what only it has.
    @Test func aProbeLooksPastPagesWeAlreadyHold() {
        var round = CatchUpRound()
        #expect(round.peerLinked(Self.a) == CatchUpAsk(peer: Self.a, mode: .full))
        #expect(round.peerLinked(Self.b) == nil)
        #expect(round.pageMerged(from: Self.a, fresh: 10, more: false) == .ask(CatchUpAsk(peer: Self.b, mode: .probe)))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.probe))
        #expect(round.pageMerged(from: Self.b, fresh: 10, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: false) == .stop)
        #expect(round.isIdle)
    }

    @Test func onePeerRunsTheFullChainAndTheOthersAreOnlyProbed() {
        var round = CatchUpRound()
        #expect(round.peerLinked(Self.a) == CatchUpAsk(peer: Self.a, mode: .full))
        #expect(round.peerLinked(Self.b) == nil)
        #expect(round.peerLinked(Self.c) == nil)
        #expect(round.peerLinked(Self.b) == nil, "linked twice, waits once")
        #expect(round.pageMerged(from: Self.a, fresh: 200, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.a, fresh: 200, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.a, fresh: 50, more: false) == .ask(CatchUpAsk(peer: Self.b, mode: .probe)))
        // Nothing new from b: a few more small pages (our cursor for it may
        // be stale), then its turn ends.
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.probe))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.probe))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .ask(CatchUpAsk(peer: Self.c, mode: .probe)))
        #expect(round.pageMerged(from: Self.c, fresh: 0, more: false) == .stop)
        #expect(round.isIdle)
        // The next link-up is a new round, with a full chain again.
        #expect(round.peerLinked(Self.b) == CatchUpAsk(peer: Self.b, mode: .full))
    }

    /// A peer whose live messages a failed commit lost runs its chain in
    /// full, even after another peer covered the gap: a probe of 20 known
    /// messages would end before the lost one.
    @Test func aPeerWhoseMessagesWereLostRunsInFullNotAsAProbe() {
        var round = CatchUpRound()
        #expect(round.peerLinked(Self.a) == CatchUpAsk(peer: Self.a, mode: .full))
        #expect(round.recover(Self.b) == nil, "a source is running: b waits")
        #expect(round.peerLinked(Self.c) == nil)
        #expect(round.pageMerged(from: Self.a, fresh: 10, more: false) == .ask(CatchUpAsk(peer: Self.b, mode: .full)))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.full), "nothing new yet, but it goes on")
        #expect(round.pageMerged(from: Self.b, fresh: 1, more: false) == .ask(CatchUpAsk(peer: Self.c, mode: .probe)))
        #expect(round.fullChains.isEmpty)
        #expect(round.pageMerged(from: Self.c, fresh: 0, more: false) == .stop)
        // Idle: recovering starts a full chain at once; a source in probe
        // mode turns full.
        #expect(round.recover(Self.c) == CatchUpAsk(peer: Self.c, mode: .full))
    }

    @Test func aProbeThatFindsSomethingNewRunsInFull() {
        var round = CatchUpRound()
        _ = round.peerLinked(Self.a)
        _ = round.peerLinked(Self.b)
        #expect(round.pageMerged(from: Self.a, fresh: 3, more: false) == .ask(CatchUpAsk(peer: Self.b, mode: .probe)))
        #expect(round.pageMerged(from: Self.b, fresh: 1, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.full), "a full chain runs to its end")
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: false) == .stop)
    }

    @Test func aSourceThatLeavesOrIsSilentHandsOverTheFullChain() {
        var round = CatchUpRound()
        _ = round.peerLinked(Self.a)
        _ = round.peerLinked(Self.b)
        _ = round.peerLinked(Self.c)
        #expect(round.peerLeft(Self.a) == CatchUpAsk(peer: Self.b, mode: .full))
        // b is silent: c takes over, b waits again (the gap is not covered).
        #expect(round.timedOut(Self.b) == CatchUpAsk(peer: Self.c, mode: .full))
        #expect(round.waiting == [Self.b])
        #expect(round.pageMerged(from: Self.c, fresh: 9, more: false) == .ask(CatchUpAsk(peer: Self.b, mode: .probe)))
        // A silent probe is dropped: nobody is asked again.
        #expect(round.timedOut(Self.b) == nil)
        #expect(round.isIdle)
    }

    @Test func aSourceWhosePagesBringNothingNewLetsTheNextGoFirst() {
        var round = CatchUpRound()
        _ = round.peerLinked(Self.a)
        #expect(round.pageMerged(from: Self.a, fresh: 0, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.a, fresh: 0, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.a, fresh: 0, more: true) == .nextPage(.full), "alone, it goes on")
        _ = round.peerLinked(Self.b)
        #expect(round.pageMerged(from: Self.a, fresh: 0, more: true) == .ask(CatchUpAsk(peer: Self.b, mode: .full)))
        #expect(round.waiting == [Self.a])
        // b brings new pages, then completes: a only gets a probe.
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: true) == .nextPage(.full))
        #expect(round.pageMerged(from: Self.b, fresh: 4, more: true) == .nextPage(.full), "something new resets the count")
        #expect(round.pageMerged(from: Self.b, fresh: 0, more: false) == .ask(CatchUpAsk(peer: Self.a, mode: .probe)))
    }

    @Test func aSilentOnlyPeerIsAskedAgainAndStalePagesAreIgnored() {
        var round = CatchUpRound()
        _ = round.peerLinked(Self.a)
        #expect(round.timedOut(Self.a) == CatchUpAsk(peer: Self.a, mode: .full))
        #expect(round.pageMerged(from: Self.b, fresh: 5, more: true) == .stop, "not the source's page")
        #expect(round.timedOut(Self.b) == nil)
        #expect(round.peerLeft(Self.b) == nil)
        #expect(round.peerLeft(Self.a) == nil)
        #expect(round.isIdle)
    }
}
