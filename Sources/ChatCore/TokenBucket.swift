/// A token bucket: `capacity` actions at once, refilled at `perSecond`.
/// Pure (the caller passes monotonic time), used to rate-limit what peers
/// can make a node do (answering catch-up requests, frames per second).
public struct TokenBucket: Sendable {
    public let capacity: Double
    public let perSecond: Double
    private var tokens: Double
    private var updated: Duration?

    public init(capacity: Double, perSecond: Double) {
        self.capacity = capacity
        self.perSecond = perSecond
        tokens = capacity
    }

    /// Takes `cost` tokens if there are enough; returns whether it could.
    public mutating func take(_ cost: Double = 1, at now: Duration) -> Bool {
        if let updated, now > updated {
            let elapsed = Double((now - updated).components.seconds) + Double((now - updated).components.attoseconds) / 1e18
            tokens = min(capacity, tokens + elapsed * perSecond)
        }
        updated = max(updated ?? now, now)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }
}
