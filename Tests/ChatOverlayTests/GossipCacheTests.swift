import ChatCore
@testable import ChatOverlay
import Testing

/// The relay's cache gives up the oldest message of whoever holds the most
/// (`GossipCache`): a flood turns over its own entries, not another
/// author's, so a GRAFT for that one is still answered.
@Suite struct GossipCacheTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }

    static func gossip(_ index: Int, from author: Int) -> GossipMessage {
        let id = MessageID(millis: 1_732_147_200_000 + Int64(index), random: (UInt64(author), UInt64(index)))
        return GossipMessage(hops: 1, message: P2PPayload(type: .publicMessage, messageId: id, senderNumber: number(author),
                                                          senderNickname: "n\(author)", content: "m\(index)",
                                                          timestamp: 1_732_147_200_000 + Int64(index)))
    }

    @Test func aFloodTurnsOverItsOwnEntriesNotAnotherAuthors() {
        var cache = GossipCache(capacity: 8)
        let honest = Self.gossip(0, from: 2)
        cache.keep(honest)
        for index in 1...1_000 { cache.keep(Self.gossip(index, from: 3 + index % 3)) }
        #expect(cache.count == 8)
        #expect(cache[honest.id] == honest, "the lone author's message stays")
        // The flood keeps its newest: 7 entries shared among the three flooders.
        #expect(cache[Self.gossip(1_000, from: 3 + 1_000 % 3).id] != nil)
        #expect(cache[Self.gossip(1, from: 4).id] == nil)
        #expect(cache.idsOldestFirst.first == honest.id)
    }

    @Test func betweenEqualHoldersTheOlderGoesAndKeptOrderIsArrival() {
        var cache = GossipCache(capacity: 4)
        let kept = [Self.gossip(0, from: 2), Self.gossip(1, from: 3), Self.gossip(2, from: 2), Self.gossip(3, from: 3)]
        for gossip in kept { cache.keep(gossip) }
        cache.keep(Self.gossip(4, from: 4))
        #expect(cache[kept[0].id] == nil, "2 and 3 hold two each; 2's oldest is older")
        #expect(cache.idsOldestFirst == [kept[1].id, kept[2].id, kept[3].id, Self.gossip(4, from: 4).id])
        // Kept again (as relayed on): updated in place, not counted twice.
        var relayed = kept[1]
        relayed.hops = 2
        cache.keep(relayed)
        #expect(cache.count == 4)
        #expect(cache[kept[1].id]?.hops == 2)
    }

    /// Through the broadcast: an honest message cached before a flood of
    /// three authors is still there for a late GRAFT.
    @Test func aLateGraftForAnHonestMessageIsAnsweredAfterAFlood() {
        var config = OverlayConfig()
        config.cachedMessages = 32
        var overlay = BroadcastTests.overlay(config)
        let honest = Self.gossip(0, from: 70)
        _ = overlay.received(.gossip(honest), from: Self.number(2), now: .seconds(1)) { _ in true }
        for index in 1...300 {
            _ = overlay.received(.gossip(Self.gossip(index, from: 71 + index % 3)), from: Self.number(2), now: .seconds(1)) { _ in true }
        }
        let answer = overlay.received(.graft([honest.id]), from: Self.number(3), now: .seconds(3)) { _ in true }
        #expect(answer.contains { if case .send(.gossip(let sent), to: Self.number(3)) = $0 { sent.id == honest.id } else { false } })
    }
}
