import ChatCore
import ChatOverlay
import Testing

/// The route of direct frames to an unlinked peer: dial on demand, a
/// bounded number of times, then sealed once its card is known (asked for
/// by a query, again after a pause), and dials again after `directRetry`.
/// On-demand links are capped each way and close when idle.
@Suite struct DirectReachTests {
    static let peer = NodeNumber(rawValue: 2_002)!
    static let card = Array(repeating: UInt8(3), count: 128)

    @Test func dialsThenQueriesThenSeals() {
        var reach = DirectReach(config: OverlayConfig())  // 2 attempts of 3 s, retry after 60 s
        #expect(reach.route(Self.peer, now: .zero, canDial: true) == .dial)
        #expect(reach.route(Self.peer, now: .seconds(1), canDial: true) == .wait, "the dial is under way")
        #expect(!reach.sealsTo(Self.peer, now: .seconds(1)))
        reach.dialFailed(Self.peer, now: .seconds(1))
        #expect(reach.route(Self.peer, now: .seconds(2), canDial: true) == .dial, "a second attempt")
        // No link and no failure reported within the dial timeout: failed too.
        #expect(reach.route(Self.peer, now: .seconds(6), canDial: true) == .queryCard)
        #expect(reach.route(Self.peer, now: .seconds(7), canDial: true) == .wait, "the next query 2 s later")
        #expect(reach.route(Self.peer, now: .seconds(8), canDial: true) == .queryCard)
        #expect(reach.route(Self.peer, now: .seconds(11), canDial: true) == .wait, "then 4 s later")
        #expect(reach.awaitsCard(of: Self.peer))
        reach.learnCard(Self.card, of: Self.peer, now: .seconds(11))
        #expect(!reach.awaitsCard(of: Self.peer))
        #expect(reach.route(Self.peer, now: .seconds(9), canDial: true) == .sealed)
        #expect(reach.sealsTo(Self.peer, now: .seconds(9)))
        #expect(reach.route(Self.peer, now: .seconds(62), canDial: true) == .dial, "after directRetry, dials again")
    }

    @Test func withoutDialsOnDemandItSealsAtOnce() {
        var config = OverlayConfig()
        config.dialsOnDemand = false
        var reach = DirectReach(config: config)
        #expect(reach.route(Self.peer, now: .zero, canDial: true) == .queryCard)
        reach.learnCard(Self.card, of: Self.peer, now: .zero)
        #expect(reach.sealsTo(Self.peer, now: .zero))
        #expect(reach.route(Self.peer, now: .zero, canDial: true) == .sealed)
    }

    @Test func aPeerThatReachedUsSealedIsAnsweredSealed() {
        var reach = DirectReach(config: OverlayConfig())
        reach.learnCard(Self.card, of: Self.peer, now: .zero)
        #expect(!reach.sealsTo(Self.peer, now: .zero), "dials come first")
        reach.reachedSealed(by: Self.peer, now: .zero)
        #expect(reach.sealsTo(Self.peer, now: .zero))
    }

    @Test func cardsExpireAndAreBounded() {
        var config = OverlayConfig()
        config.cardsMax = 2
        var reach = DirectReach(config: config)
        let peers = (1...3).map { NodeNumber(rawValue: 3_000 + $0)! }
        for peer in peers { reach.learnCard(Self.card, of: peer, now: .zero) }
        #expect(reach.card(of: peers[0], now: .zero) == nil, "the oldest made room")
        #expect(reach.card(of: peers[2], now: .zero) == Self.card)
        #expect(reach.card(of: peers[2], now: config.cardLifetime) == nil, "a card lives for cardLifetime")
    }

    @Test func cardQueriesAreBounded() {
        var config = OverlayConfig()
        config.cardQueriesMax = 2
        config.dialsOnDemand = false
        var reach = DirectReach(config: config)
        let peers = (1...3).map { NodeNumber(rawValue: 4_000 + $0)! }
        #expect(peers.map { reach.route($0, now: .zero, canDial: false) } == [.queryCard, .queryCard, .wait])
        #expect(reach.route(peers[2], now: .seconds(10), canDial: false) == .queryCard, "long-unanswered queries made room")
    }

    @Test func onDemandLinksAreCappedEachWayAndCloseWhenIdle() {
        var config = OverlayConfig()
        config.directLinksMax = 2
        config.directIdle = .seconds(30)
        var reach = DirectReach(config: config)
        let peers = (1...5).map { NodeNumber(rawValue: 5_000 + $0)! }
        reach.linkUp(peers[0], inbound: true, now: .zero)
        reach.linkUp(peers[1], inbound: true, now: .zero)
        #expect(!reach.admits(inbound: true) && reach.admits(inbound: false))
        #expect(reach.route(peers[2], now: .zero, canDial: true) == .dial)
        #expect(reach.route(peers[3], now: .zero, canDial: true) == .dial)
        #expect(reach.route(peers[4], now: .zero, canDial: true) == .queryCard, "two dials under way fill the outbound cap")
        reach.traffic(peers[0], now: .seconds(20))
        #expect(reach.idle(now: .seconds(30)) == [peers[1]])
        #expect(reach.idle(now: .seconds(50)) == [peers[0], peers[1]].sorted())
        reach.linkDown(peers[1])
        #expect(reach.admits(inbound: true))
    }
}

extension DirectReachTests {
    /// A peer that never answers is asked ever less often, up to once a minute or so.
    @Test func unansweredCardQueriesBackOff() {
        var config = OverlayConfig()
        config.dialsOnDemand = false
        var reach = DirectReach(config: config)
        var asked: [Int] = []
        for second in 0..<300 where reach.route(Self.peer, now: .seconds(second), canDial: false) == .queryCard { asked.append(second) }
        #expect(Array(asked.prefix(6)) == [0, 2, 6, 14, 30, 62])
        let gaps = zip(asked.dropFirst(), asked).map { $0 - $1 }
        #expect(gaps.max() == 64)
    }
}
