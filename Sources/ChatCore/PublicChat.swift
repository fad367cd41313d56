/// The room everyone on the LAN shares: the 240-character rule on send and
/// receive, the newest 100 messages, unread counting and duplicate dropping.
public struct PublicChat: Sendable {
    public var identity: NodeIdentity
    public private(set) var log: RoomLog
    private var ids = MessageIDGenerator()

    public init(identity: NodeIdentity, capacity: Int = ChatLimits.roomCapacity) {
        self.identity = identity
        log = RoomLog(room: .publicRoom, capacity: capacity)
    }

    public var messages: BoundedBuffer<Message> { log.messages }
    public var unreadCount: Int { log.unreadCount }

    /// Validates `text`, adds it to the room, and returns the frame to send.
    public mutating func compose(_ text: String, at timestamp: Int64, automatic: Bool = false) throws(ChatError) -> (payload: P2PPayload, message: Message) {
        let composed = try draft(text, id: ids.next(millis: timestamp), at: timestamp, automatic: automatic)
        _ = log.add(composed.message, localNumber: identity.number)
        return composed
    }

    /// Validates `text` and makes this node's message `id` of it, without
    /// adding it to the room (`add` does, once it is stored): a node signs
    /// its message before the step that stores it.
    public func draft(_ text: String, id: MessageID, at timestamp: Int64, automatic: Bool = false) throws(ChatError) -> (payload: P2PPayload, message: Message) {
        let content: String
        do { content = try MessageText.validated(text) } catch { throw .invalidText(error) }
        let payload = P2PPayload(
            type: .publicMessage, messageId: id,
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            content: content, timestamp: timestamp, automatic: automatic ? true : nil)
        let message = try! Message(from: payload, localNumber: identity.number)  // validated above
        return (payload, message)
    }

    /// Takes a `publicMessage` from a peer (or one's own echoed back).
    public mutating func receive(_ payload: P2PPayload) throws(ChatError) -> [ChatEvent] {
        guard payload.type == .publicMessage else { throw .unexpectedType(payload.type) }
        let message: Message
        do { message = try Message(from: payload, localNumber: identity.number) } catch { throw .invalidText(error) }
        return add(message)
    }

    /// Adds an already validated message (e.g. from catch-up or the store).
    public mutating func add(_ message: Message) -> [ChatEvent] {
        switch log.add(message, localNumber: identity.number) {
        case .duplicate:
            return [.duplicate(message.id, .publicRoom)]
        case .added(let counted):
            var events: [ChatEvent] = [.message(message)]
            if counted { events.append(.unreadChanged(.publicRoom, count: log.unreadCount)) }
            return events
        }
    }

    /// See `RoomLog.settle()`.
    public mutating func settle() { log.settle() }

    /// Loads the store's newest messages and unread count at start-up.
    public mutating func restore(_ messages: [Message], unreadCount: Int) {
        log.restore(messages, unreadCount: unreadCount)
    }

    public mutating func activate() -> [ChatEvent] {
        log.activate() ? [.unreadChanged(.publicRoom, count: 0)] : []
    }

    public mutating func deactivate() { log.deactivate() }

    /// See `RoomLog.forget`.
    public mutating func forget(_ ids: Set<MessageID>, unreadCount: Int?) { log.forget(ids, unreadCount: unreadCount) }

    /// Clears the unread count without activating the room.
    public mutating func markRead() -> [ChatEvent] {
        log.markRead() ? [.unreadChanged(.publicRoom, count: 0)] : []
    }
}
