import ChatCore

/// How a node reaches a peer outside its active view when it has direct
/// frames (DMs, their acks, file offers) for it, above the overlay's
/// threshold (PROTOCOL.md, "Overlay", direct reach): first a link dialled
/// on demand, kept while the conversation lasts; when dials fail (or may
/// not be made), the frames go sealed to the peer's card through the
/// overlay. Pure: the shell asks `route` and carries it out, and reports
/// links, traffic and cards. Every table is capped.
///
/// On-demand links are not the membership's: it never counts, shuffles or
/// drops them. At most `directLinksMax` each way, so a peer cannot make a
/// node hold more.
public struct DirectReach: Sendable {
    /// What to do now for an unlinked peer with frames waiting.
    public enum Route: Sendable, Hashable {
        /// Dial it on demand (the shell dials, then reports `linkUp` or `dialFailed`).
        case dial
        /// Seal its frames to its card and send them through the overlay.
        case sealed
        /// Flood a query for its card, then wait.
        case queryCard
        /// A dial or a card query is under way, or nothing can be done yet.
        case wait
    }

    struct Attempts: Sendable, Hashable {
        var failed = 0
        /// A dial under way, until then.
        var dialUntil: Duration?
        /// When failed dials are forgotten and dialling may start again.
        var retryAt: Duration?
    }

    struct Card: Sendable, Hashable {
        var bytes: [UInt8]
        var until: Duration
    }

    /// Peers whose dial attempts are remembered.
    static let attemptsMax = 256

    public let config: OverlayConfig
    private var attempts: [NodeNumber: Attempts] = [:]
    /// Verified cards (the shell checks them before it reports one).
    private var cards: [NodeNumber: Card] = [:]
    private var cardOrder = FIFOQueue<NodeNumber>()
    /// Card queries outstanding: when the next may go, and the gap after
    /// it (doubled per unanswered query up to `maxQueryGap`, so a peer
    /// that is gone costs the overlay a flood a minute, not one every 2 s).
    private var queries: [NodeNumber: (next: Duration, gap: Duration)] = [:]
    static let maxQueryGap: Duration = .seconds(64)
    /// On-demand links up, by peer: inbound or not, and the last direct traffic.
    public private(set) var links: [NodeNumber: (inbound: Bool, lastTraffic: Duration)] = [:]

    public init(config: OverlayConfig) {
        self.config = config
    }

    // MARK: Routing

    /// What to do for `peer` now. `canDial`: its address is known and a
    /// dial may be made (the shell's own limits allow it).
    public mutating func route(_ peer: NodeNumber, now: Duration, canDial: Bool) -> Route {
        var entry = attempts[peer] ?? Attempts()
        if let until = entry.dialUntil {
            if now < until { return .wait }
            // No link within the dial timeout: a failed attempt.
            entry.dialUntil = nil
            entry.failed += 1
            if entry.retryAt == nil { entry.retryAt = now + config.directRetry }
        }
        if let retry = entry.retryAt, now >= retry { entry = Attempts() }
        defer { remember(peer, entry, now: now) }
        if config.dialsOnDemand, canDial, entry.failed < config.directDialAttempts,
           outboundCount + dialling(now: now) < config.directLinksMax {
            entry.dialUntil = now + config.dialTimeout
            return .dial
        }
        if card(of: peer, now: now) != nil { return .sealed }
        if let query = queries[peer], now < query.next { return .wait }
        if queries[peer] == nil, queries.count >= config.cardQueriesMax {
            // Queries long unanswered make room.
            queries = queries.filter { now < $0.value.next + config.cardQueryRetry * 4 }
            guard queries.count < config.cardQueriesMax else { return .wait }
        }
        let gap = queries[peer].map { min($0.gap * 2, Self.maxQueryGap) } ?? config.cardQueryRetry
        queries[peer] = (now + gap, gap)
        return .queryCard
    }

    /// Whether frames for unlinked `peer` go sealed now (no dial under way
    /// or to come, and its card is known): the shell's `send` asks this.
    public func sealsTo(_ peer: NodeNumber, now: Duration) -> Bool {
        guard card(of: peer, now: now) != nil else { return false }
        guard let entry = attempts[peer] else { return !config.dialsOnDemand }
        if let until = entry.dialUntil, now < until { return false }
        return !config.dialsOnDemand || entry.failed >= config.directDialAttempts
    }

    private func dialling(now: Duration) -> Int {
        attempts.values.count { $0.dialUntil.map { now < $0 } ?? false }
    }

    /// Whether an on-demand dial to `peer` is under way.
    public func isDialling(_ peer: NodeNumber, now: Duration) -> Bool {
        attempts[peer]?.dialUntil.map { now < $0 } ?? false
    }

    /// The dial failed before a link was made.
    public mutating func dialFailed(_ peer: NodeNumber, now: Duration) {
        guard var entry = attempts[peer], entry.dialUntil != nil else { return }
        entry.dialUntil = nil
        entry.failed += 1
        if entry.retryAt == nil { entry.retryAt = now + config.directRetry }
        attempts[peer] = entry
    }

    /// `peer` reached this node sealed: it cannot be dialled either, most
    /// likely, so answers go sealed too (until `directRetry`).
    public mutating func reachedSealed(by peer: NodeNumber, now: Duration) {
        var entry = attempts[peer] ?? Attempts()
        entry.failed = max(entry.failed, config.directDialAttempts)
        entry.retryAt = now + config.directRetry
        remember(peer, entry, now: now)
    }

    private mutating func remember(_ peer: NodeNumber, _ entry: Attempts, now: Duration) {
        if attempts[peer] == nil, attempts.count >= Self.attemptsMax {
            // Full: forget one not dialling (it costs at most a dial again).
            if let idle = attempts.first(where: { $0.value.dialUntil.map { $0 <= now } ?? true })?.key {
                attempts[idle] = nil
            } else {
                return
            }
        }
        attempts[peer] = entry
    }

    // MARK: Cards

    /// A verified card for `peer` (the shell checked its signature and that its identity derives `peer`).
    public mutating func learnCard(_ card: [UInt8], of peer: NodeNumber, now: Duration) {
        queries[peer] = nil
        if cards[peer] == nil {
            while cards.count >= config.cardsMax, let oldest = cardOrder.popFirst() { cards[oldest] = nil }
            cardOrder.append(peer)
            if cardOrder.count > 2 * config.cardsMax {
                cardOrder.removeAll()
                for number in cards.keys.sorted() { cardOrder.append(number) }
            }
        }
        cards[peer] = Card(bytes: card, until: now + config.cardLifetime)
    }

    /// A card sealed to failed or was refused: asked again next time.
    public mutating func forgetCard(of peer: NodeNumber) {
        cards[peer] = nil
    }

    /// `peer`'s card while it lives (an expired one stays until it is
    /// replaced or makes room, bounded by `cardsMax`).
    public func card(of peer: NodeNumber, now: Duration) -> [UInt8]? {
        guard let card = cards[peer], now < card.until else { return nil }
        return card.bytes
    }

    /// Whether this node asked for `peer`'s card (a card nobody asked for is not kept).
    public func awaitsCard(of peer: NodeNumber) -> Bool { queries[peer] != nil }

    /// Whether this node awaits any card (a card going by is worth a check).
    public var awaitsAnyCard: Bool { !queries.isEmpty }

    // MARK: On-demand links

    public var outboundCount: Int { links.values.count { !$0.inbound } }
    public var inboundCount: Int { links.values.count { $0.inbound } }

    /// Whether one more on-demand link may be taken that way.
    public func admits(inbound: Bool) -> Bool {
        (inbound ? inboundCount : outboundCount) < config.directLinksMax
    }

    public mutating func linkUp(_ peer: NodeNumber, inbound: Bool, now: Duration) {
        attempts[peer] = nil
        links[peer] = (inbound, now)
    }

    public mutating func linkDown(_ peer: NodeNumber) {
        links[peer] = nil
    }

    /// A direct frame went or came on `peer`'s on-demand link.
    public mutating func traffic(_ peer: NodeNumber, now: Duration) {
        links[peer]?.lastTraffic = now
    }

    /// On-demand links without direct traffic for `directIdle`: to close.
    public func idle(now: Duration) -> [NodeNumber] {
        links.filter { now - $0.value.lastTraffic >= config.directIdle }.keys.sorted()
    }
}
