import ChatCore
import ChatOverlay

/// The transport's side of the overlay: the pure `Overlay` value and what
/// the shell (`P2PService+Overlay.swift`) must remember to carry out its
/// actions on real links. Every table is capped.
struct OverlayLinks: Sendable {
    /// Peers remembered as speaking no overlay: their links stay as without it.
    static let maxLegacy = 1_024

    var overlay: Overlay
    /// Peers whose hello lacked `overlay` (bounded; forgotten oldest first
    /// once full, which costs at most a dial that finds out again).
    private(set) var legacy: Set<NodeNumber> = []
    private var legacyOrder = FIFOQueue<NodeNumber>()
    /// Dials the overlay asked for, until when they may be made (its dial timeout).
    var wanted: [NodeNumber: Duration] = [:]
    /// Links on demand, cards and the route of each unlinked peer's direct frames.
    var direct: DirectReach
    /// Card queries, cards and sealed envelopes passed on.
    var relay: SealedRelay
    /// Envelopes opened lately (digests): a replay is dropped.
    var opened = RecentDigests(capacity: 1_024)
    /// Card answers this node gives (each is flooded).
    var cardAnswers = TokenBucket(capacity: 8, perSecond: 2)

    init(me: NodeNumber, config: OverlayConfig, now: Duration) {
        overlay = Overlay(me: me, config: config, seed: UInt64.random(in: 0...UInt64.max), now: now)
        direct = DirectReach(config: config)
        relay = SealedRelay(config: config)
    }

    /// Below the threshold: every peer is linked, as without the overlay.
    var isFullMesh: Bool { overlay.membership.isFullMesh }

    /// Whether the transport may dial announced peer `number` by its own
    /// rules: always in a full mesh; above the threshold only peers that
    /// speak no overlay (linked as before) and those the overlay asked for.
    func permitsDial(_ number: NodeNumber) -> Bool {
        isFullMesh || legacy.contains(number) || wanted[number] != nil
    }

    mutating func markLegacy(_ number: NodeNumber) {
        guard legacy.insert(number).inserted else { return }
        legacyOrder.append(number)
        while legacy.count > Self.maxLegacy, let oldest = legacyOrder.popFirst() { legacy.remove(oldest) }
        if legacyOrder.count > 2 * Self.maxLegacy {
            // Numbers that turned overlay meanwhile: the order starts again.
            legacyOrder.removeAll()
            for number in legacy.sorted() { legacyOrder.append(number) }
        }
    }

    mutating func markOverlay(_ number: NodeNumber) {
        // Left in `legacyOrder`: popping an absent number later is harmless.
        legacy.remove(number)
    }
}

/// The last `capacity` digests seen (an envelope's SHA-256, cut to 16 bytes).
struct RecentDigests: Sendable {
    private var members: Set<[UInt8]> = []
    private var order = FIFOQueue<[UInt8]>()
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Records `digest`; false if it was there.
    mutating func insert(_ digest: [UInt8]) -> Bool {
        guard members.insert(digest).inserted else { return false }
        order.append(digest)
        while members.count > capacity, let oldest = order.popFirst() { members.remove(oldest) }
        return true
    }
}
