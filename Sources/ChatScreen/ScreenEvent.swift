import ChatCore
import Foundation

/// A room in the side list, as the session reads it from the store.
public struct RoomEntry: Hashable, Sendable {
    public var room: RoomID
    /// Peer's nickname for a DM, "public" for the public room (unsanitized).
    public var title: String
    public var unread: Int
    public var lastActivity: Date?
    /// DM peers: linked right now.
    public var online: Bool
    /// DM peers: their stage, for the filter.
    public var stage: String?

    public init(room: RoomID, title: String, unread: Int = 0, lastActivity: Date? = nil, online: Bool = false, stage: String? = nil) {
        self.room = room
        self.title = title
        self.unread = unread
        self.lastActivity = lastActivity
        self.online = online
        self.stage = stage
    }
}

/// Which way a history page goes from the loaded run.
public enum PageDirection: Hashable, Sendable {
    case older, newer
}

/// Everything that can change the screen: keys, the terminal's size, and
/// what the session brings back from the node.
public enum ScreenEvent: Hashable, Sendable {
    case key(ScreenKey)
    case resize(width: Int, height: Int)
    /// The whole room list (at start and after big changes).
    case rooms([RoomEntry])
    /// The room opened: the page around its read marker.
    case opened(HistoryPage, title: String)
    /// A page asked for with `ScreenEffect.loadPage`.
    case pageLoaded(HistoryPage, PageDirection)
    /// A new message (anyone's, own included), with the name to show and,
    /// for own DMs, the peer's name for the room.
    case message(Message, name: String, roomTitle: String? = nil)
    case delivery(MessageID, DeliveryState)
    /// The store's unread count for a room (after a mark-read, or an event).
    case unread(RoomID, Int)
    /// Peers linked now, by number, with their stage.
    case peers([NodeNumber: String?])
    /// The node's identity line; fingerprint and group secret are optional.
    case identity(name: String, fingerprint: String?, groupSecret: Bool?)
    /// A one-line notice (errors, confirmations).
    case notice(String)
    /// Several lines to show over the room (help, peer lists) until a key.
    case panel([String])
    /// A panel opened at its end, for lines read newest last (the log).
    case panelFromEnd([String])
    /// The frame of the current state is on the terminal at `at` (any
    /// monotonic origin): sent after each frame and again once it has
    /// stayed. Only this moves the read marker, over messages shown in full
    /// for `ScreenReducer.dwell`, so a burst flashing past is not read.
    case drawn(at: Duration)
    /// A page of `/search` results; `first` numbers its first item (1: a new search).
    case searchResults(query: String, items: [SearchList.Item], hasMore: Bool, first: Int)
    /// A search result's room, opened on the page around it (`.openAround`).
    case openedAround(HistoryPage, title: String, at: HistoryCursor)
    /// A peer's key is not the one its nickname belongs to: `notice` is
    /// said now and again whenever its conversation opens (ScreenReducer+Trust).
    case keyChanged(RoomID, notice: String)
    /// The nodes whose keys the user verified: their names carry a ✓.
    case verified(Set<NodeNumber>)
    /// A file transfer's line in its DM conversation (new, or updated by id).
    case fileLine(RoomID, FileLine)
}

/// What the reducer asks the session to do against the node.
public enum ScreenEffect: Hashable, Sendable {
    /// Activate the room and load the page around its marker (-> `.opened`).
    case open(RoomID)
    /// Load 30 messages before/after `cursor` (-> `.pageLoaded`).
    case loadPage(RoomID, PageDirection, from: HistoryCursor)
    /// Move the read marker to the newest loaded message (`/read`).
    case markRead(RoomID, upTo: HistoryCursor)
    /// A frame showed `from...upTo` in full: move the marker there, unless
    /// the store knows of an unseen message before `from`.
    case markShown(RoomID, from: HistoryCursor, upTo: HistoryCursor)
    case send(String, to: RoomID)
    /// A message wants the reader's attention: ring the terminal bell.
    case ring
    /// A `/command` line for the CommandExecutor.
    case command(String)
    /// Open a room on the page around a message (-> `.openedAround`).
    case openAround(RoomID, HistoryCursor)
    case quit
}
