import ChatCore
@testable import ChatOverlay
import Testing

/// Plumtree's rules one frame at a time: verify before relaying, prune on
/// a duplicate, graft an announced id that does not come.
@Suite struct BroadcastTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }
    static let id = MessageID("01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f")!
    static var gossip: GossipMessage {
        GossipMessage(hops: 1, message: P2PPayload(type: .publicMessage, messageId: id, senderNumber: number(9),
                                                   senderNickname: "n", content: "m", timestamp: 1_732_147_200_000))
    }

    /// A node in partial mode with `neighbours` (2, 3 and 4: all eager at first).
    static func overlay(_ config: OverlayConfig = OverlayConfig(), neighbours: ClosedRange<Int> = 2...4) -> Overlay {
        var overlay = Overlay(me: number(1), config: config, seed: 1, now: .zero)
        for peer in 2...80 { _ = overlay.peerHeard(number(peer), now: .zero) }
        for peer in neighbours {
            _ = overlay.linkUp(number(peer), now: .zero)
            _ = overlay.received(.neighbor(highPriority: false), from: number(peer), now: .zero) { _ in true }
        }
        return overlay
    }

    /// A node below the threshold linked to `peers` (a full mesh).
    static func fullMesh(_ peers: ClosedRange<Int>) -> Overlay {
        var overlay = Overlay(me: number(1), seed: 1, now: .zero)
        for peer in peers {
            _ = overlay.peerHeard(number(peer), now: .zero)
            _ = overlay.linkUp(number(peer), now: .zero)
        }
        #expect(overlay.membership.isFullMesh)
        return overlay
    }

    @Test func nothingIsRelayedOrDeliveredBeforeTheSignatureHolds() {
        var overlay = Self.overlay()
        let refused = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(1)) { _ in false }
        #expect(refused.isEmpty)
        var asked = 0
        let accepted = overlay.received(.gossip(Self.gossip), from: Self.number(3), now: .seconds(1)) { _ in asked += 1; return true }
        #expect(accepted.first == .deliver(Self.gossip, from: Self.number(3)))
        #expect(accepted.contains(.send(.gossip(GossipMessage(hops: 2, message: Self.gossip.message)), to: Self.number(2))))
        let duplicate = overlay.received(.gossip(Self.gossip), from: Self.number(4), now: .seconds(1)) { _ in asked += 1; return true }
        #expect(asked == 1, "a duplicate is not verified again")
        #expect(duplicate == [.send(.prune, to: Self.number(4))])
        #expect(overlay.broadcast.lazy.contains(Self.number(4)))
    }

    /// A node's own message sent while its links were a full mesh never
    /// went through the broadcast; a neighbour that caught it up sends it
    /// back. A duplicate, not a bad signature: the neighbour keeps its
    /// score, nothing is delivered or relayed, and the id is held.
    @Test func aNodesOwnMessageComingBackIsADuplicateNotALie() {
        var overlay = Self.overlay()
        var own = Self.gossip
        own.message.senderNumber = Self.number(1)
        let before = overlay.membership.score(Self.number(2))
        var asked = 0
        let actions = overlay.received(.gossip(own), from: Self.number(2), now: .seconds(1)) { _ in asked += 1; return false }
        #expect(asked == 0, "not verified: held already")
        #expect(!actions.contains { if case .deliver = $0 { true } else { false } })
        #expect(!actions.contains { if case .send(.gossip, _) = $0 { true } else { false } })
        #expect(overlay.membership.score(Self.number(2)) >= before, "an honest relay is not scored down")
        // Announced again by another: held, so never grafted.
        _ = overlay.received(.ihave([own.id]), from: Self.number(3), now: .seconds(2)) { _ in true }
        let later = overlay.tick(now: .seconds(10))
        #expect(!later.contains { if case .send(.graft, _) = $0 { true } else { false } })
    }

    /// Past `eagerInitial` eager neighbours a new one starts lazy: the
    /// first message after a LAN formed is pushed along a few links and
    /// announced on the rest, not pushed along all of them (a flood of
    /// 8.4 copies a node at 1,000 nodes of 9 links).
    @Test func aNeighbourPastTheEagerCapStartsLazyAndIsToldIDsOnly() {
        var config = OverlayConfig()
        config.eagerInitial = 2
        var overlay = Self.overlay(config, neighbours: 2...5)
        #expect(overlay.broadcast.eager == [Self.number(2), Self.number(3)])
        #expect(overlay.broadcast.lazy == [Self.number(4), Self.number(5)])
        let pushed = overlay.publish(Self.gossip.message, now: .seconds(1))
        #expect(pushed.filter { if case .send(.gossip, _) = $0 { true } else { false } }.count == 2)
        let flushed = overlay.tick(now: .seconds(2))
        #expect(flushed.contains(.send(.ihave([Self.id]), to: Self.number(4))))
        #expect(flushed.contains(.send(.ihave([Self.id]), to: Self.number(5))))
    }

    /// A node that leaves a full mesh (all its links eager: the author
    /// pushes to everyone there) keeps `eagerInitial` of them eager.
    @Test func leavingAFullMeshKeepsFewEagerNeighbours() {
        var overlay = Self.fullMesh(2...7)
        #expect(overlay.broadcast.eager.count == 6)
        for peer in 8...80 { _ = overlay.peerHeard(Self.number(peer), now: .zero) }
        _ = overlay.tick(now: .seconds(1))
        #expect(!overlay.membership.isFullMesh)
        #expect(overlay.broadcast.neighbors.count == 6)
        #expect(overlay.broadcast.eager.count == OverlayConfig().eagerInitial)
    }

    /// A link eager at one end only (the other started it lazy): a copy
    /// pushed to the lazy end that it already holds is pruned there too,
    /// or the eager end pushes duplicates for as long as the link lasts.
    @Test func aDuplicateFromALazyNeighbourIsPruned() {
        var overlay = Self.overlay()
        _ = overlay.received(.prune, from: Self.number(4), now: .seconds(1)) { _ in true }
        #expect(overlay.broadcast.lazy.contains(Self.number(4)))
        _ = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(1)) { _ in true }
        let duplicate = overlay.received(.gossip(Self.gossip), from: Self.number(4), now: .seconds(1)) { _ in true }
        #expect(duplicate == [.send(.prune, to: Self.number(4))])
        #expect(overlay.broadcast.lazy.contains(Self.number(4)))
    }

    static func gossip(_ n: Int) -> GossipMessage {
        GossipMessage(hops: 1, message: P2PPayload(type: .publicMessage, messageId: MessageID("01934c04-c001-7c3d-8e4f-\(String(format: "%012x", 0x100 + n))")!,
                                                   senderNumber: number(9), senderNickname: "n", content: "m\(n)",
                                                   timestamp: 1_732_147_200_000 + Int64(n)))
    }

    /// Where pushed copies come a second after their announcements (a
    /// loaded host), an announced id waits past that before it is grafted
    /// (TCP's retransmission timeout on the lag), not 250 ms: each early graft cost a GRAFT, its answer, two
    /// duplicates and two PRUNEs. The wait stays within `graftTimeoutMax`.
    @Test func copiesThatLagTheirAnnouncementsLengthenTheGraftWait() {
        var overlay = Self.overlay()
        _ = overlay.received(.prune, from: Self.number(4), now: .zero) { _ in true }
        var now = Duration.seconds(1)
        for n in 0..<30 {
            _ = overlay.received(.ihave([Self.gossip(n).id]), from: Self.number(4), now: now) { _ in true }
            _ = overlay.tick(now: now + .milliseconds(300))  // the first few are grafted, and teach the wait
            _ = overlay.received(.gossip(Self.gossip(n)), from: Self.number(2), now: now + .seconds(1)) { _ in true }
            now += .seconds(3)
        }
        #expect(overlay.broadcast.pushLag.map { $0 > .milliseconds(900) } == true)
        let late = Self.gossip(99)
        _ = overlay.received(.ihave([late.id]), from: Self.number(4), now: now) { _ in true }
        #expect(overlay.tick(now: now + .milliseconds(950)).isEmpty, "waits past the lag")
        #expect(overlay.tick(now: now + OverlayConfig().graftTimeoutMax).contains(.send(.graft([late.id]), to: Self.number(4))))

        // Copies ten seconds late: the wait stops at graftTimeoutMax.
        for n in 30..<60 {
            _ = overlay.received(.ihave([Self.gossip(n).id]), from: Self.number(4), now: now) { _ in true }
            _ = overlay.received(.gossip(Self.gossip(n)), from: Self.number(2), now: now + .seconds(10)) { _ in true }
            now += .seconds(11)
        }
        let last = Self.gossip(100)
        _ = overlay.received(.ihave([last.id]), from: Self.number(4), now: now) { _ in true }
        #expect(overlay.tick(now: now + OverlayConfig().graftTimeoutMax).contains(.send(.graft([last.id]), to: Self.number(4))))
    }

    @Test func anAnnouncedIDThatDoesNotComeIsGrafted() {
        var overlay = Self.overlay()
        _ = overlay.received(.ihave([Self.id]), from: Self.number(2), now: .seconds(1)) { _ in true }
        #expect(overlay.tick(now: .seconds(1) + .milliseconds(100)).isEmpty || true)
        let actions = overlay.tick(now: .seconds(2))
        #expect(actions.contains(.send(.graft([Self.id]), to: Self.number(2))))
        // The grafted peer answers: delivered once, and the grafted link is eager.
        let answered = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(2)) { _ in true }
        #expect(answered.first == .deliver(Self.gossip, from: Self.number(2)))
        #expect(overlay.broadcast.eager.contains(Self.number(2)))
    }

    /// Hundreds of announced ids overdue at once (a flood) go in GRAFTs of
    /// at most `idsPerFrame` ids: a longer one is malformed to its receiver
    /// (`OverlayFrameCodec`), which counted it and dropped the link.
    @Test func manyOverdueIDsAreGraftedInFramesTheCodecTakes() throws {
        var overlay = Self.overlay()
        let ids = (0..<200).map { MessageID("01934c04-c001-7c3d-8e4f-\(String(format: "%012x", $0))")! }
        for start in stride(from: 0, to: ids.count, by: 64) {
            _ = overlay.received(.ihave(Array(ids[start..<min(ids.count, start + 64)])), from: Self.number(2), now: .seconds(1)) { _ in true }
        }
        let grafts = overlay.tick(now: .seconds(2)).compactMap { if case .send(.graft(let ids), Self.number(2)) = $0 { ids } else { nil } }
        #expect(grafts.count == 4)
        #expect(grafts.allSatisfy { $0.count <= OverlayConfig().idsPerFrame })
        #expect(Set(grafts.joined()) == Set(ids))
        let header = OverlayFrameCodec.Header(messageId: Self.id, senderNumber: Self.number(1), senderNickname: "n", timestamp: 1)
        for ids in grafts { #expect(try OverlayFrameCodec.decode(OverlayFrameCodec.encode(.graft(ids), header: header)).1 == .graft(ids)) }
    }

    @Test func aGraftIsAnsweredFromTheCacheAndIHavesAreBatched() {
        var overlay = Self.overlay()
        _ = overlay.received(.prune, from: Self.number(4), now: .seconds(1)) { _ in true }
        _ = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(1)) { _ in true }
        let flushed = overlay.tick(now: .seconds(2))
        #expect(flushed.contains(.send(.ihave([Self.id]), to: Self.number(4))), "ids only, to the lazy peer")
        let answer = overlay.received(.graft([Self.id]), from: Self.number(4), now: .seconds(2)) { _ in true }
        #expect(answer == [.send(.gossip(GossipMessage(hops: 2, message: Self.gossip.message)), to: Self.number(4))])
    }

    /// A lazy neighbour that announced the id itself, or sent it again, is
    /// not told it: every pair of lazy neighbours in a wave told each other.
    @Test func aNeighbourThatHoldsTheIDIsNotToldIt() {
        var overlay = Self.overlay()
        _ = overlay.received(.prune, from: Self.number(3), now: .seconds(1)) { _ in true }
        _ = overlay.received(.prune, from: Self.number(4), now: .seconds(1)) { _ in true }
        _ = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(1)) { _ in true }
        _ = overlay.received(.ihave([Self.id]), from: Self.number(3), now: .seconds(1) + .milliseconds(10)) { _ in true }
        let flushed = overlay.tick(now: .seconds(2))
        #expect(!flushed.contains(.send(.ihave([Self.id]), to: Self.number(3))), "3 announced it")
        #expect(flushed.contains(.send(.ihave([Self.id]), to: Self.number(4))), "4 did not")

        let second = GossipMessage(hops: 1, message: P2PPayload(type: .publicMessage, messageId: MessageID("01934c04-c001-7c3d-8e4f-5a6b7c8d9e10")!,
                                                                senderNumber: Self.number(9), senderNickname: "n", content: "m2",
                                                                timestamp: 1_732_147_200_001))
        _ = overlay.received(.gossip(second), from: Self.number(2), now: .seconds(3)) { _ in true }
        _ = overlay.received(.gossip(second), from: Self.number(4), now: .seconds(3)) { _ in true }
        let again = overlay.tick(now: .seconds(4))
        #expect(!again.contains(.send(.ihave([second.id]), to: Self.number(4))), "4 sent it")
        #expect(again.contains(.send(.ihave([second.id]), to: Self.number(3))))

        // Announced before it came (the common case): not told either.
        let third = GossipMessage(hops: 1, message: P2PPayload(type: .publicMessage, messageId: MessageID("01934c04-c001-7c3d-8e4f-5a6b7c8d9e11")!,
                                                               senderNumber: Self.number(9), senderNickname: "n", content: "m3",
                                                               timestamp: 1_732_147_200_002))
        _ = overlay.received(.ihave([third.id]), from: Self.number(3), now: .seconds(5)) { _ in true }
        _ = overlay.received(.gossip(third), from: Self.number(2), now: .seconds(5) + .milliseconds(10)) { _ in true }
        let last = overlay.tick(now: .seconds(6))
        #expect(!last.contains(.send(.ihave([third.id]), to: Self.number(3))), "3 announced it first")
        #expect(last.contains(.send(.ihave([third.id]), to: Self.number(4))))
    }

    /// A message that went out before a link joined the views (published
    /// while they were apart) is announced to the new neighbour, which
    /// grafts it: push alone would never carry it across.
    @Test func aNewNeighbourIsToldTheNewestIDs() {
        var overlay = Self.overlay()
        _ = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(1)) { _ in true }
        _ = overlay.tick(now: .seconds(2))
        _ = overlay.linkUp(Self.number(5), now: .seconds(3))
        _ = overlay.received(.neighbor(highPriority: false), from: Self.number(5), now: .seconds(3)) { _ in true }
        #expect(overlay.membership.active[Self.number(5)] != nil)
        let flushed = overlay.tick(now: .seconds(4))
        #expect(flushed.contains(.send(.ihave([Self.id]), to: Self.number(5))))
        #expect(!flushed.contains(.send(.ihave([Self.id]), to: Self.number(3))), "old neighbours are not told again")
        // Its graft is answered from the cache.
        let answer = overlay.received(.graft([Self.id]), from: Self.number(5), now: .seconds(4)) { _ in true }
        #expect(answer == [.send(.gossip(GossipMessage(hops: 2, message: Self.gossip.message)), to: Self.number(5))])
    }

    /// A joiner's message, then a flood of 300 from one author: the new
    /// neighbour is still told the joiner's id (the newest 64 alone were
    /// all the flood's, and the message never crossed the link by push).
    @Test func aNewNeighbourIsToldALoneAuthorsIDBehindAFlood() throws {
        var overlay = Self.overlay()
        _ = overlay.received(.gossip(Self.gossip), from: Self.number(2), now: .seconds(1)) { _ in true }
        var flood: [MessageID] = []
        for index in 0..<300 {
            let hex = String(index, radix: 16)
            let id = try #require(MessageID("01934c04-c002-7c3d-8e4f-" + String(repeating: "0", count: 12 - hex.count) + hex))
            flood.append(id)
            let message = P2PPayload(type: .publicMessage, messageId: id, senderNumber: Self.number(50),
                                     senderNickname: "f", content: "flood", timestamp: 1_732_147_200_000)
            _ = overlay.received(.gossip(GossipMessage(hops: 1, message: message)), from: Self.number(2), now: .seconds(1)) { _ in true }
        }
        _ = overlay.tick(now: .seconds(2))
        _ = overlay.linkUp(Self.number(5), now: .seconds(3))
        _ = overlay.received(.neighbor(highPriority: false), from: Self.number(5), now: .seconds(3)) { _ in true }
        let told = overlay.tick(now: .seconds(4)).flatMap { action -> [MessageID] in
            if case .send(.ihave(let ids), Self.number(5)) = action { ids } else { [] }
        }
        #expect(told.contains(Self.id), "the joiner's message is announced")
        #expect(told.count == 64 && told.filter(flood.contains) == Array(flood.suffix(63)), "the rest is the newest of the flood, in order")
    }

    /// In a full mesh every author sends to everyone and a new link's
    /// catch-up covers the rest: no announcement.
    @Test func aFullMeshNeighbourIsNotToldOldIDs() {
        var overlay = Self.fullMesh(2...3)
        _ = overlay.publish(Self.gossip.message, now: .seconds(1))
        _ = overlay.peerHeard(Self.number(4), now: .seconds(2))
        _ = overlay.linkUp(Self.number(4), now: .seconds(2))
        #expect(overlay.membership.active[Self.number(4)] != nil)
        let flushed = overlay.tick(now: .seconds(3))
        #expect(!flushed.contains { if case .send(.ihave, _) = $0 { true } else { false } })
    }

    /// What the node stored from a catch-up (a partition healed on one
    /// link) is announced to every neighbour, which grafts it: the gap is
    /// closed beside this node too, not only here.
    @Test func messagesStoredFromACatchUpAreAnnouncedToEveryNeighbour() {
        var overlay = Self.overlay()
        _ = overlay.received(.prune, from: Self.number(4), now: .seconds(1)) { _ in true }  // one lazy, two eager
        #expect(overlay.announce([Self.gossip.message], now: .seconds(1)).isEmpty, "ids only, nothing pushed")
        let flushed = overlay.tick(now: .seconds(2))
        for peer in 2...4 { #expect(flushed.contains(.send(.ihave([Self.id]), to: Self.number(peer))), "to \(peer)") }
        #expect(overlay.announce([Self.gossip.message], now: .seconds(3)).isEmpty)
        #expect(!overlay.tick(now: .seconds(4)).contains { if case .send(.ihave, _) = $0 { true } else { false } },
                "an id is announced once")
        let answer = overlay.received(.graft([Self.id]), from: Self.number(3), now: .seconds(4)) { _ in true }
        #expect(answer == [.send(.gossip(Self.gossip), to: Self.number(3))])
    }
}
