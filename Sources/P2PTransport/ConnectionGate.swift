import ChatCore

/// Rate-limits inbound connection attempts per source IP address: each
/// address has a token bucket (`burst` attempts at once, refilled at
/// `perSecond`). Pure: the caller passes the time, so tests drive it
/// without sockets.
///
/// Memory is bounded: an address idle long enough for its bucket to be full
/// again is forgotten (indistinguishable from a new one), and past
/// `maxAddresses` the least recently seen address is forgotten early.
struct ConnectionGate: Sendable {
    private struct Entry: Sendable {
        var bucket: TokenBucket
        var lastAttempt: Duration
    }

    let burst: Int
    let perSecond: Double
    let maxAddresses: Int
    private var entries: [UInt32: Entry] = [:]

    init(burst: Int, perSecond: Double, maxAddresses: Int = 4_096) {
        self.burst = burst
        self.perSecond = perSecond
        self.maxAddresses = maxAddresses
    }

    /// Addresses with a partly spent budget.
    var trackedAddresses: Int { entries.count }

    /// Records an attempt from `address`; false if it is over its budget.
    mutating func admit(_ address: UInt32, at now: Duration) -> Bool {
        if entries[address] == nil, entries.count >= maxAddresses {
            forgetIdle(at: now)
            if entries.count >= maxAddresses, let stalest = entries.min(by: { $0.value.lastAttempt < $1.value.lastAttempt }) {
                entries[stalest.key] = nil
            }
        }
        var entry = entries[address] ?? Entry(bucket: TokenBucket(capacity: Double(burst), perSecond: perSecond), lastAttempt: now)
        let admitted = entry.bucket.take(at: now)
        entry.lastAttempt = now
        entries[address] = entry
        return admitted
    }

    /// Forgets addresses whose bucket has refilled completely.
    mutating func forgetIdle(at now: Duration) {
        let refill = Duration.seconds(Double(burst) / perSecond)
        entries = entries.filter { now - $0.value.lastAttempt < refill }
    }
}
