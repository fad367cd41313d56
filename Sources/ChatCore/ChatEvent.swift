/// What happened in the chat core as a result of a frame or a command; the
/// node turns these into store writes and user-visible events.
public enum ChatEvent: Hashable, Sendable {
    /// A new message was added to its room.
    case message(Message)
    /// A message whose id was already in its room arrived again: ignored.
    case duplicate(MessageID, RoomID)
    /// A room's unread count changed.
    case unreadChanged(RoomID, count: Int)
    /// A peer asked to open a DM conversation; `message` is its first text.
    case dmRequested(peer: NodeNumber, nickname: String, message: Message)
    /// A conversation's request state changed.
    case dmStateChanged(peer: NodeNumber, DMState)
    /// A peer's frame broke a rule and was dropped.
    case rejected(from: NodeNumber, ChatError)
    /// A link-level or delivery frame (hello, ack, ping, leave, history): the
    /// node and transport own these.
    case control(P2PPayload)
    /// A frame type this build does not know: counted and skipped.
    case unknownType(from: NodeNumber, name: String)
}
