/// Exponential reconnect delay: `base`, 2×, 4×… up to `cap`, each jittered
/// by ±20% so peers that lost each other together do not redial in lockstep.
struct Backoff: Sendable, Hashable {
    let base: Duration
    let cap: Duration
    private(set) var failures = 0

    init(base: Duration, cap: Duration) {
        self.base = base
        self.cap = max(cap, base)
    }

    /// The delay before the next attempt; counts one more failure.
    /// `jitter` is a factor, normally drawn from 0.8...1.2.
    mutating func nextDelay(jitter: Double = Double.random(in: 0.8...1.2)) -> Duration {
        // 2^16 × base is past any sensible cap; stop doubling there.
        let exponent = min(failures, 16)
        failures += 1
        return min(base * (1 << exponent), cap) * jitter
    }

    mutating func reset() { failures = 0 }
}
