/// When to hand the allocator's free memory back to the system: once a
/// burst of traffic (a flood, a long catch-up) has ended. glibc's malloc
/// keeps what a burst freed, so a node flooded once stayed at its peak
/// (about 120 MB against 20 MB idle) for good. Trimming during the burst
/// would only fight the allocator, and trimming when nothing happened
/// costs a walk of the heap for nothing, so neither is done.
///
/// A pure value: fed the node's `stored` counter once per tick, it says
/// whether to trim now.
struct MemoryTrimPolicy: Sendable {
    /// Messages stored since the last trim that make a burst.
    let burst: Int
    /// At most this many stored in one tick counts as quiet.
    let quiet: Int

    private var storedAtTrim: Int?
    private var storedLastTick: Int?

    init(burst: Int = 2_000, quiet: Int = 100) {
        self.burst = burst
        self.quiet = quiet
    }

    /// The counter's value at this tick; true when a burst has just ended.
    mutating func observe(stored: Int) -> Bool {
        defer { storedLastTick = stored }
        guard let atTrim = storedAtTrim, let last = storedLastTick else {
            storedAtTrim = stored  // the first tick is the baseline
            return false
        }
        guard stored - atTrim >= burst, stored - last <= quiet else { return false }
        storedAtTrim = stored
        return true
    }
}
