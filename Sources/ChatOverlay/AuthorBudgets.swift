import ChatCore

/// Gossiped public messages taken per author: a burst, then a rate
/// (`OverlayConfig.authorBurst`, `authorPerSecond`). A link's frame budget
/// bounds what one neighbour sends, but a flooder's messages reach a node
/// through every neighbour that relays them; this bounds what the node
/// stores and relays of one author, whoever carries it. Charged only for a
/// message whose signature holds, so a forger cannot spend an honest
/// author's budget. At most `capacity` authors are tracked; the one
/// tracked longest makes room (it starts again with a full burst: what a
/// flood of fresh identities gets anyway).
struct AuthorBudgets: Sendable {
    let burst: Double
    let perSecond: Double
    let capacity: Int
    private var buckets: [NodeNumber: TokenBucket] = [:]
    private var order = FIFOQueue<NodeNumber>()

    init(burst: Double, perSecond: Double, capacity: Int) {
        self.burst = burst
        self.perSecond = perSecond
        self.capacity = max(1, capacity)
    }

    var count: Int { buckets.count }

    /// Whether one more message of `author` fits now (nothing is taken).
    func allows(_ author: NodeNumber, now: Duration) -> Bool {
        guard var bucket = buckets[author] else { return true }
        return bucket.take(at: now)
    }

    /// Takes one message of `author`; false past its budget.
    mutating func charge(_ author: NodeNumber, now: Duration) -> Bool {
        if buckets[author] == nil {
            while buckets.count >= capacity, let oldest = order.popFirst() { buckets[oldest] = nil }
            order.append(author)
        }
        var bucket = buckets[author] ?? TokenBucket(capacity: burst, perSecond: perSecond)
        let ok = bucket.take(at: now)
        buckets[author] = bucket
        return ok
    }
}
