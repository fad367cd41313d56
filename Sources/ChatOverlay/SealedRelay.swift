import ChatCore

/// The relay side of sealed delivery (PROTOCOL.md, "Overlay", sealed
/// relay): card queries, cards and sealed envelopes are flooded over the
/// overlay's links, each relayed at most once per id, within a hop limit
/// and a per-peer budget. Pure: the shell asks what to do with a frame
/// and sends it on. A relay keeps only the id, never the frame.
public struct SealedRelay: Sendable {
    public enum Verdict: Sendable, Hashable {
        /// New: handle it, and pass it on with `ttl` if not nil.
        case fresh(forwardTTL: Int?)
        /// Seen before (by id): dropped.
        case duplicate
        /// Its peer sent more than its budget allows: dropped.
        case overBudget
    }

    /// Peers whose budgets are kept; past this the oldest are forgotten
    /// (a forgotten peer starts with a full burst again, which is bounded).
    static let budgetsMax = 256

    public let config: OverlayConfig
    private var seen: RecentIDs
    private var budgets: [NodeNumber: TokenBucket] = [:]
    private var budgetOrder = FIFOQueue<NodeNumber>()
    public private(set) var relayed = 0

    public init(config: OverlayConfig) {
        self.config = config
        seen = RecentIDs(capacity: max(1, config.relaySeenMax))
    }

    /// A frame of this node's own: remembered so its echo is dropped; the header to send it with.
    public mutating func originate(_ id: MessageID) -> RelayHeader {
        seen.insert(id)
        return RelayHeader(id: id, ttl: config.relayTTL)
    }

    /// A relay frame from neighbour `peer`.
    public mutating func receive(_ header: RelayHeader, from peer: NodeNumber, now: Duration) -> Verdict {
        guard take(from: peer, now: now) else { return .overBudget }
        guard seen.insert(header.id) else { return .duplicate }
        guard header.ttl > 0 else { return .fresh(forwardTTL: nil) }
        relayed += 1
        return .fresh(forwardTTL: min(header.ttl, config.relayTTL) - 1)
    }

    /// Whether `id` was seen (relayed or sent) lately.
    public func hasSeen(_ id: MessageID) -> Bool { seen.contains(id) }

    public mutating func forget(_ peer: NodeNumber) {
        budgets[peer] = nil
    }

    private mutating func take(from peer: NodeNumber, now: Duration) -> Bool {
        if budgets[peer] == nil {
            while budgets.count >= Self.budgetsMax, let oldest = budgetOrder.popFirst() { budgets[oldest] = nil }
            budgets[peer] = TokenBucket(capacity: config.relayBurst, perSecond: config.relayPerSecond)
            budgetOrder.append(peer)
            if budgetOrder.count > 2 * Self.budgetsMax {
                // Peers forgotten meanwhile: the order starts again.
                budgetOrder.removeAll()
                for number in budgets.keys.sorted() { budgetOrder.append(number) }
            }
        }
        return budgets[peer]!.take(at: now)
    }
}
