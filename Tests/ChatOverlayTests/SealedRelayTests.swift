import ChatCore
import ChatOverlay
import Testing

/// Flooding a relay frame: once per id, within the hop limit, within each
/// peer's budget; a node's own frame is not taken back.
@Suite struct SealedRelayTests {
    static let alice = NodeNumber(rawValue: 1_001)!
    static let bob = NodeNumber(rawValue: 1_002)!

    static func id(_ n: UInt64) -> MessageID { MessageID(millis: 1_732_147_200_000, random: (n, n)) }

    @Test func eachIDIsRelayedOnceWithOneHopLess() {
        var relay = SealedRelay(config: OverlayConfig())
        let header = RelayHeader(id: Self.id(1), ttl: 8)
        #expect(relay.receive(header, from: Self.alice, now: .zero) == .fresh(forwardTTL: 7))
        #expect(relay.receive(header, from: Self.bob, now: .zero) == .duplicate)
        #expect(relay.receive(RelayHeader(id: Self.id(2), ttl: 0), from: Self.bob, now: .zero) == .fresh(forwardTTL: nil),
                "handled, not passed on")
        #expect(relay.receive(RelayHeader(id: Self.id(3), ttl: 16), from: Self.bob, now: .zero) == .fresh(forwardTTL: 7),
                "a hop limit above ours is cut to ours")
    }

    @Test func ownFramesComeBackAsDuplicates() {
        var relay = SealedRelay(config: OverlayConfig())
        let header = relay.originate(Self.id(5))
        #expect(header.ttl == OverlayConfig().relayTTL)
        #expect(relay.receive(header, from: Self.alice, now: .zero) == .duplicate)
    }

    @Test func aPeerOverItsBudgetIsDropped() {
        var config = OverlayConfig()
        config.relayBurst = 4
        config.relayPerSecond = 1
        var relay = SealedRelay(config: config)
        for n in 0..<4 { #expect(relay.receive(RelayHeader(id: Self.id(UInt64(10 + n)), ttl: 3), from: Self.alice, now: .zero) != .overBudget) }
        #expect(relay.receive(RelayHeader(id: Self.id(20), ttl: 3), from: Self.alice, now: .zero) == .overBudget)
        #expect(relay.receive(RelayHeader(id: Self.id(21), ttl: 3), from: Self.bob, now: .zero) == .fresh(forwardTTL: 2), "bob's own budget")
        #expect(relay.receive(RelayHeader(id: Self.id(22), ttl: 3), from: Self.alice, now: .seconds(1)) == .fresh(forwardTTL: 2), "refilled")
        #expect(!relay.hasSeen(Self.id(20)), "an id dropped over budget is not remembered: it may come again by another way")
    }

    @Test func seenIDsAreBounded() {
        var config = OverlayConfig()
        config.relaySeenMax = 8
        config.relayBurst = 1_000
        var relay = SealedRelay(config: config)
        for n in 0..<20 { _ = relay.receive(RelayHeader(id: Self.id(UInt64(100 + n)), ttl: 3), from: Self.alice, now: .zero) }
        #expect(!relay.hasSeen(Self.id(100)) && relay.hasSeen(Self.id(119)))
    }
}
