import ChatCore
import ChatOverlay
import Foundation
import Testing

/// The per-author budget on gossiped public messages: however many
/// neighbours relay an author's flood, a node takes (stores, relays) a
/// burst and then a rate of it; a forger cannot spend an honest author's
/// budget; the author pushing its own flood is scored down and replaced,
/// the relays that pass it on are not.
@Suite struct AuthorBudgetTests {
    static func number(_ value: Int) -> NodeNumber { NodeNumber(rawValue: UInt64(value))! }

    static func message(_ index: Int, by author: NodeNumber) -> GossipMessage {
        let id = MessageID(String(format: "01934c04-c001-7c3d-8e4f-%012x", index))!
        return GossipMessage(hops: 1, message: P2PPayload(type: .publicMessage, messageId: id, senderNumber: author,
                                                          senderNickname: "n", content: "m \(index)", timestamp: 1_732_147_200_000))
    }

    static var config: OverlayConfig {
        var config = OverlayConfig()
        config.authorBurst = 10
        config.authorPerSecond = 2
        return config
    }

    /// Partial mode, neighbours 2, 3 and 4.
    static func overlay() -> Overlay {
        var overlay = Overlay(me: number(1), config: config, seed: 1, now: .zero)
        for peer in 2...80 { _ = overlay.peerHeard(number(peer), now: .zero) }
        for peer in 2...4 {
            _ = overlay.linkUp(number(peer), now: .zero)
            _ = overlay.received(.neighbor(highPriority: false), from: number(peer), now: .zero) { _ in true }
        }
        #expect(!overlay.membership.isFullMesh)
        #expect(Set(overlay.membership.activePeers).isSuperset(of: [number(2), number(3), number(4)]))
        return overlay
    }

    static func delivered(_ actions: [OverlayAction]) -> Int {
        actions.count { if case .deliver = $0 { true } else { false } }
    }

    static func relayed(_ actions: [OverlayAction]) -> Int {
        actions.count { if case .send(.gossip, _) = $0 { true } else { false } }
    }

    @Test func aFloodRelayedByEveryNeighbourIsTakenAtTheAuthorsBudget() {
        var overlay = Self.overlay()
        let flooder = Self.number(9)
        var delivered = 0, relayed = 0, verified = 0
        // 30 distinct messages, each relayed by a different neighbour in turn, all within one second.
        for index in 0..<30 {
            let relay = Self.number(2 + index % 3)
            let actions = overlay.received(.gossip(Self.message(index, by: flooder)), from: relay,
                                           now: .seconds(1) + .milliseconds(index)) { _ in verified += 1; return true }
            delivered += Self.delivered(actions)
            relayed += Self.relayed(actions)
        }
        #expect(delivered == 10, "the burst, not three relays' worth")
        #expect(verified == 10, "past the budget a message is dropped before its signature is checked")
        #expect(relayed > 0 && relayed <= 10 * 2, "only what was taken is relayed on: \(relayed)")
        #expect(overlay.broadcast.overBudget == 20)
        // Another author is not held back by the flooder's budget.
        let other = overlay.received(.gossip(Self.message(100, by: Self.number(10))), from: Self.number(2),
                                     now: .seconds(1) + .milliseconds(40)) { _ in true }
        #expect(Self.delivered(other) == 1)
        // The rate refills: one more second, two more messages.
        var later = 0
        for index in 30..<40 {
            later += Self.delivered(overlay.received(.gossip(Self.message(index, by: flooder)), from: Self.number(3),
                                                     now: .seconds(2) + .milliseconds(100 + index)) { _ in true })
        }
        #expect(later == 2)
        // The relays passed on a flood they did not start: none is scored down for it.
        _ = overlay.tick(now: .seconds(3))
        #expect(Set(overlay.membership.activePeers).isSuperset(of: [Self.number(2), Self.number(3), Self.number(4)]))
    }

    @Test func forgedMessagesDoNotSpendAnHonestAuthorsBudget() {
        var overlay = Self.overlay()
        let honest = Self.number(9)
        for index in 0..<50 {
            _ = overlay.received(.gossip(Self.message(index, by: honest)), from: Self.number(2),
                                 now: .seconds(1)) { _ in false }
        }
        var delivered = 0
        for index in 100..<110 {
            delivered += Self.delivered(overlay.received(.gossip(Self.message(index, by: honest)), from: Self.number(3),
                                                         now: .seconds(1)) { _ in true })
        }
        #expect(delivered == 10, "the whole burst is still the author's")
    }

    @Test func anAuthorPushingItsOwnFloodIsDroppedAndHeldOff() {
        var overlay = Self.overlay()
        let flooder = Self.number(2)
        var now = Duration.seconds(1)
        for index in 0..<40 {
            now += .milliseconds(1)
            _ = overlay.received(.gossip(Self.message(index, by: flooder)), from: flooder, now: now) { _ in true }
        }
        now += .seconds(1)
        let actions = overlay.tick(now: now)
        #expect(actions.contains(.send(.disconnect, to: flooder)))
        #expect(actions.contains(.close(flooder)))
        #expect(overlay.membership.active[flooder] == nil)
        // Held off: its JOIN is answered no at once (not left to the grace).
        _ = overlay.linkDown(flooder, now: now)
        _ = overlay.linkUp(flooder, now: now)
        let reply = overlay.received(.join, from: flooder, now: now + .milliseconds(10)) { _ in true }
        #expect(reply == [.send(.neighborReply(accepted: false), to: flooder)])
        #expect(overlay.membership.active[flooder] == nil)
    }
}
