/// One 1:1 conversation: the peer, where the request flow stands, and the
/// room's messages and unread count.
public struct DirectConversation: Sendable {
    public let peer: NodeNumber
    /// The peer's nickname as last seen on one of their frames.
    public var peerNickname: String
    public internal(set) var state: DMState
    public internal(set) var log: RoomLog
    /// The `messageId` of the peer's last request (a `dmRequest`, or a
    /// `directMessage` taken as one): my `dmAccept`/`dmDecline` name it in
    /// `refId`. Memory only, so unknown after a restart (the frame then goes
    /// without `refId`, which receivers must not require).
    public internal(set) var lastRequestId: MessageID?

    public init(peer: NodeNumber, peerNickname: String, state: DMState = .none, capacity: Int = ChatLimits.roomCapacity) {
        self.peer = peer
        self.peerNickname = peerNickname
        self.state = state
        log = RoomLog(room: .direct(peer), capacity: capacity)
    }
}
