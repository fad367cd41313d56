/// Remembers the last `capacity` message ids seen, for dropping duplicates
/// (an echo of your own message, a replay) in O(1) with bounded memory.
public struct RecentIDs: Sendable {
    private var order: BoundedBuffer<MessageID>
    private var members: Set<MessageID>

    public init(capacity: Int = ChatLimits.recentIDMemory) {
        order = BoundedBuffer(capacity: capacity)
        members = Set(minimumCapacity: capacity)
    }

    public func contains(_ id: MessageID) -> Bool { members.contains(id) }

    /// Records `id`; returns false if it was already there.
    @discardableResult
    public mutating func insert(_ id: MessageID) -> Bool {
        guard !members.contains(id) else { return false }
        if let dropped = order.append(id) { members.remove(dropped) }
        members.insert(id)
        return true
    }

    public var count: Int { members.count }
}
