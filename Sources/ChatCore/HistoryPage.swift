/// One page of a room's history as the store returns it: messages in display
/// order (oldest first) and whether the room has more on either side.
///
/// `hasMoreBefore` / `hasMoreAfter` are exact (the store checks the index),
/// so a `HistoryWindow` built from pages knows when it holds the newest
/// message without a wasted empty fetch.
public struct HistoryPage: Hashable, Sendable {
    public var room: RoomID
    /// Oldest first.
    public var messages: [Message]
    /// Some message of the room sorts before the first one here.
    public var hasMoreBefore: Bool
    /// Some message of the room sorts after the last one here.
    public var hasMoreAfter: Bool
    /// The room's "read up to here" marker when the page was read, if any.
    public var readMarker: HistoryCursor?

    public init(room: RoomID, messages: [Message], hasMoreBefore: Bool, hasMoreAfter: Bool, readMarker: HistoryCursor? = nil) {
        self.room = room
        self.messages = messages
        self.hasMoreBefore = hasMoreBefore
        self.hasMoreAfter = hasMoreAfter
        self.readMarker = readMarker
    }

    public var first: HistoryCursor? { messages.first?.cursor }
    public var last: HistoryCursor? { messages.last?.cursor }

    /// Index of the first message after the read marker (where a "new
    /// messages" line goes), or nil if every message here is read. With no
    /// marker at all, everything is after it.
    public var firstUnreadIndex: Int? {
        guard let readMarker else { return messages.isEmpty ? nil : 0 }
        return messages.firstIndex { $0.cursor > readMarker }
    }
}
