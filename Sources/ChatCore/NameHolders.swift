/// Which node number each nickname was last seen with, so a front end can
/// say "a different alice" when the name comes back on another node (after
/// identities, another key). Names are compared by `LookAlike.key`.
///
/// Bounded: a peer can make up any number of names, so the least recently
/// seen are forgotten past `capacity`.
public struct NameHolders: Sendable {
    public let capacity: Int
    private var holders: [String: (number: NodeNumber, seen: UInt64)] = [:]
    private var clock: UInt64 = 0

    public init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    /// Records that `nickname` is held by `number` now. Returns the number
    /// that held it before, when that was another node.
    @discardableResult
    public mutating func record(_ nickname: String, number: NodeNumber) -> NodeNumber? {
        let key = LookAlike.key(nickname)
        clock += 1
        let previous = holders[key]?.number
        holders[key] = (number, clock)
        if holders.count > capacity, let oldest = holders.min(by: { $0.value.seen < $1.value.seen })?.key {
            holders[oldest] = nil
        }
        return previous == number ? nil : previous
    }

    /// Who holds `nickname`, if it was seen.
    public func holder(of nickname: String) -> NodeNumber? {
        holders[LookAlike.key(nickname)]?.number
    }

    public var count: Int { holders.count }
}
