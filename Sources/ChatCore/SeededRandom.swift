/// A small seeded generator (SplitMix64): a simulation or a randomized
/// test replays exactly from its seed. Not for secrets: the overlay's
/// choices (which neighbour, which passive peer) only need to be
/// unpredictable to peers, and a node seeds it from the system generator.
///
/// `@inlinable`, so the overlay's simulator (built with -O) inlines it
/// even where ChatCore is built without optimisation.
public struct SeededRandom: RandomNumberGenerator, Sendable, Hashable {
    @usableFromInline var state: UInt64

    public init(seed: UInt64) { state = seed }

    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (bound > 0).
    @inlinable public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A uniformly chosen element, or nil for an empty collection.
    @inlinable public mutating func pick<C: Collection>(_ elements: C) -> C.Element? {
        guard !elements.isEmpty else { return nil }
        return elements[elements.index(elements.startIndex, offsetBy: below(elements.count))]
    }

    /// Up to `count` distinct elements in random order.
    @inlinable public mutating func sample<T>(_ elements: [T], _ count: Int) -> [T] {
        var pool = elements
        let wanted = min(count, pool.count)
        for index in 0..<wanted { pool.swapAt(index, index + below(pool.count - index)) }
        return Array(pool.prefix(wanted))
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double.random(in: 0..<1, using: &self) < p
    }
}
