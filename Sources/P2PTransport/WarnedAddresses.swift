/// Addresses already named in a warn-once log line. Bounded: past `limit`
/// the set is forgotten all at once, so a stream of new sources costs
/// bounded memory (and, at worst, a repeated line).
struct WarnedAddresses: Sendable {
    static let limit = 1024
    private var seen: Set<UInt32> = []

    /// True the first time `address` is seen (since the last forgetting).
    mutating func isFirst(_ address: UInt32) -> Bool {
        if seen.count >= Self.limit { seen.removeAll() }
        return seen.insert(address).inserted
    }
}
