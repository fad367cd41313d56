import Foundation

/// A room as the chat list shows it, read from the rooms table alone.
public struct RoomSummary: Hashable, Sendable {
    public var room: RoomID
    /// The newest message (by display order), if any.
    public var lastMessage: HistoryCursor?
    public var lastSenderNickname: String?
    /// The newest message's text, cut to `ChatStore.previewCharacters`.
    public var lastPreview: String?
    /// "Read up to here": messages after it from others are unread.
    public var readMarker: HistoryCursor?
    public var unreadCount: Int
    public var messageCount: Int
    /// DM rooms: the peer's nickname as last seen.
    public var peerNickname: String?
    /// DM rooms: where the request flow stands (nil if never set).
    public var dmState: DMState?

    public init(
        room: RoomID, lastMessage: HistoryCursor? = nil, lastSenderNickname: String? = nil, lastPreview: String? = nil,
        readMarker: HistoryCursor? = nil, unreadCount: Int = 0, messageCount: Int = 0,
        peerNickname: String? = nil, dmState: DMState? = nil
    ) {
        self.room = room
        self.lastMessage = lastMessage
        self.lastSenderNickname = lastSenderNickname
        self.lastPreview = lastPreview
        self.readMarker = readMarker
        self.unreadCount = unreadCount
        self.messageCount = messageCount
        self.peerNickname = peerNickname
        self.dmState = dmState
    }

    /// When the newest message was sent; what the chat list groups by.
    public var lastActivity: Date? { lastMessage.map { Timestamp.date(fromMillis: $0.timestamp) } }
}
