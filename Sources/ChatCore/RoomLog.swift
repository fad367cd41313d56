/// What every room keeps in memory: its newest messages in display order
/// (capped at 100, oldest dropped), duplicate detection, and the unread count.
///
/// Unread rule: a message counts only while the room is not active and only
/// if someone else wrote it; activating the room clears the count.
///
/// Added messages wait in a small `pending` list until `settle()`: the node
/// plans each step on a copy of its router, and writing into the buffers
/// that copy shares with the original would copy the whole room (100
/// messages and 1024 ids) on every step. Settled after the copy is adopted,
/// the buffers are no longer shared and change in place.
public struct RoomLog: Sendable {
    public let room: RoomID
    private var settled: BoundedBuffer<Message>
    private var pending: [Message] = []
    public private(set) var unreadCount = 0
    public private(set) var isActive = false
    private var seen = RecentIDs()
    /// Past this many pending messages `add` settles by itself, so a log
    /// nobody settles stays bounded; pending ids are searched linearly.
    static let pendingLimit = 64

    public init(room: RoomID, capacity: Int = ChatLimits.roomCapacity) {
        self.room = room
        settled = BoundedBuffer(capacity: capacity)
    }

    /// The room's newest messages in display order, pending ones included.
    public var messages: BoundedBuffer<Message> {
        guard !pending.isEmpty else { return settled }
        var merged = self
        merged.settle()
        return merged.settled
    }

    /// Whether nothing waits to be settled.
    public var isSettled: Bool { pending.isEmpty }

    /// Identifies the buffer the settled messages live in (diagnostics: a
    /// copy of the room on every step once cost the node a third of its
    /// CPU per message, and a test watches for it).
    public var storageIdentity: Int { settled.storageIdentity }

    /// Outcome of adding a message.
    public enum AddResult: Hashable, Sendable {
        /// Added; `counted` tells whether it raised the unread count.
        case added(counted: Bool)
        /// The same messageId was already here: ignored.
        case duplicate
    }

    /// Adds `message` in display order unless its id was seen before.
    public mutating func add(_ message: Message, localNumber: NodeNumber) -> AddResult {
        guard !contains(message.id) else { return .duplicate }
        if pending.count >= Self.pendingLimit { settle() }
        pending.append(message)
        let counted = !isActive && message.senderNumber != localNumber
        if counted { unreadCount += 1 }
        return .added(counted: counted)
    }

    public func contains(_ id: MessageID) -> Bool {
        seen.contains(id) || pending.contains { $0.id == id }
    }

    /// Moves pending messages into the room's buffers, as if each had been
    /// added there directly.
    public mutating func settle() {
        guard !pending.isEmpty else { return }
        for message in pending {
            seen.insert(message.id)
            insertInOrder(message)
        }
        pending = []
    }

    /// Loads messages the store kept (any order) and the store's unread
    /// count, as at start-up: no counting, the newest `capacity` kept.
    public mutating func restore(_ messages: [Message], unreadCount: Int) {
        settle()
        for message in messages.sorted(by: Message.displayOrder) where seen.insert(message.id) {
            insertInOrder(message)
        }
        self.unreadCount = max(0, unreadCount)
    }

    /// Drops messages the store no longer holds (aged out of the pool
    /// unknown authors share) and takes the store's unread count, if given.
    /// Their ids stay seen: a copy arriving again is a duplicate here.
    public mutating func forget(_ ids: Set<MessageID>, unreadCount: Int?) {
        settle()
        if settled.contains(where: { ids.contains($0.id) }) {
            let kept = settled.filter { !ids.contains($0.id) }
            settled.removeAll()
            for message in kept { _ = settled.append(message) }
        }
        if let unreadCount, !isActive { self.unreadCount = max(0, unreadCount) }
    }

    /// Makes the room the one being read: clears unread. Returns whether the
    /// count changed.
    @discardableResult
    public mutating func activate() -> Bool {
        isActive = true
        defer { unreadCount = 0 }
        return unreadCount != 0
    }

    public mutating func deactivate() { isActive = false }

    /// Clears the unread count without activating (e.g. "mark read").
    @discardableResult
    public mutating func markRead() -> Bool {
        defer { unreadCount = 0 }
        return unreadCount != 0
    }

    /// Live messages nearly always arrive newest, so search from the back.
    private mutating func insertInOrder(_ message: Message) {
        var index = settled.count
        while index > 0, Message.displayOrder(message, settled[index - 1]) {
            index -= 1
        }
        settled.insert(message, at: index)
    }
}
