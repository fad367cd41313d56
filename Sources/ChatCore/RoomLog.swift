/// What every room keeps in memory: its newest messages in display order
/// (capped at 100, oldest dropped), duplicate detection, and the unread count.
///
/// Unread rule: a message counts only while the room is not active and only
/// if someone else wrote it; activating the room clears the count.
public struct RoomLog: Sendable {
    public let room: RoomID
    public private(set) var messages: BoundedBuffer<Message>
    public private(set) var unreadCount = 0
    public private(set) var isActive = false
    private var seen = RecentIDs()

    public init(room: RoomID, capacity: Int = ChatLimits.roomCapacity) {
        self.room = room
        messages = BoundedBuffer(capacity: capacity)
    }

    /// Outcome of adding a message.
    public enum AddResult: Hashable, Sendable {
        /// Added; `counted` tells whether it raised the unread count.
        case added(counted: Bool)
        /// The same messageId was already here: ignored.
        case duplicate
    }

    /// Adds `message` in display order unless its id was seen before.
    public mutating func add(_ message: Message, localNumber: NodeNumber) -> AddResult {
        guard seen.insert(message.id) else { return .duplicate }
        insertInOrder(message)
        let counted = !isActive && message.senderNumber != localNumber
        if counted { unreadCount += 1 }
        return .added(counted: counted)
    }

    public func contains(_ id: MessageID) -> Bool { seen.contains(id) }

    /// Loads messages the store kept (any order) and the store's unread
    /// count, as at start-up: no counting, the newest `capacity` kept.
    public mutating func restore(_ messages: [Message], unreadCount: Int) {
        for message in messages.sorted(by: Message.displayOrder) where seen.insert(message.id) {
            insertInOrder(message)
        }
        self.unreadCount = max(0, unreadCount)
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
        var index = messages.count
        while index > 0, Message.displayOrder(message, messages[index - 1]) {
            index -= 1
        }
        messages.insert(message, at: index)
    }
}
