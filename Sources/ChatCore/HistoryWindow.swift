/// The part of one room's history a reader has loaded, and what to do with a
/// message that arrives live while they read.
///
/// Pure bookkeeping: it holds cursors, not messages, so a terminal that
/// prints pages and a UI that keeps them can share it. It is built from
/// `HistoryPage`s, whose `hasMoreBefore` / `hasMoreAfter` are exact.
///
/// Invariant: the loaded messages are one contiguous run of the room's
/// history, `oldest...newest`. A live message is only added to it when that
/// keeps the run contiguous, i.e. when every newer page is already loaded;
/// otherwise it would sit after a gap of unloaded messages, out of order.
public struct HistoryWindow: Hashable, Sendable {
    /// What to do with a message that arrives while the room is open.
    public enum LivePlacement: Hashable, Sendable {
        /// The reader is at the newest page: add it in display order (in
        /// practice at the end) and keep following the conversation.
        case appendAndFollow
        /// The reader has scrolled back, but the newest page is loaded: add
        /// it in display order and tell the reader ("1 new message below").
        case appendAndAnnounce
        /// Newer pages are not loaded (or it belongs to the unloaded older
        /// part): it is stored only, and the reader is told. Adding it to the
        /// window would put it after a gap, out of order.
        case storeAndAnnounce
    }

    public let room: RoomID
    /// First and last loaded message; nil while nothing is loaded.
    public private(set) var oldest: HistoryCursor?
    public private(set) var newest: HistoryCursor?
    /// The room has messages older than `oldest` that are not loaded.
    public private(set) var hasMoreBefore: Bool
    /// The room has messages newer than `newest` that are not loaded.
    public private(set) var hasMoreAfter: Bool
    /// Messages in the loaded run.
    public private(set) var count: Int
    /// The reader is looking at the newest page and sees new messages as
    /// they come. Only possible while nothing newer is unloaded.
    public private(set) var isFollowing: Bool

    /// A window for a room with nothing loaded and nothing known: a live
    /// message is simply appended.
    public init(room: RoomID) {
        self.room = room
        hasMoreBefore = false
        hasMoreAfter = false
        count = 0
        isFollowing = true
    }

    /// A window opened on `page` (the newest page, or one around the read
    /// marker). The reader follows when the page reaches the newest message.
    public init(page: HistoryPage) {
        room = page.room
        oldest = page.first
        newest = page.last
        hasMoreBefore = page.hasMoreBefore
        hasMoreAfter = page.hasMoreAfter
        count = page.messages.count
        isFollowing = !page.hasMoreAfter
    }

    /// Where to fetch the next older page from (`page(_:before:)`), or nil
    /// when there is nothing older.
    public var olderPageCursor: HistoryCursor? { hasMoreBefore ? oldest : nil }

    /// Where to fetch the next newer page from (`page(_:after:)`), or nil
    /// when the newest message is loaded.
    public var newerPageCursor: HistoryCursor? { hasMoreAfter ? newest : nil }

    /// Records an older page the reader scrolled up to: the reader no longer
    /// looks at the newest page.
    public mutating func loadedOlder(_ page: HistoryPage) {
        let wasEmpty = count == 0
        include(page)
        hasMoreBefore = page.hasMoreBefore
        // The newer side is the window's own, unless this page is all it has.
        if wasEmpty { hasMoreAfter = page.hasMoreAfter }
        isFollowing = false
    }

    /// Records a newer page the reader scrolled down to: reaching the newest
    /// message makes the reader follow again.
    public mutating func loadedNewer(_ page: HistoryPage) {
        let wasEmpty = count == 0
        include(page)
        hasMoreAfter = page.hasMoreAfter
        if wasEmpty { hasMoreBefore = page.hasMoreBefore }
        isFollowing = !hasMoreAfter
    }

    /// The oldest `dropped` loaded messages were let go (a reader following
    /// a long conversation keeps only its newest part): the run now starts
    /// at `newOldest`, and what came before is there to page back to.
    public mutating func droppedOldest(_ dropped: Int, newOldest: HistoryCursor) {
        guard dropped > 0 else { return }
        oldest = newOldest
        hasMoreBefore = true
        count = max(0, count - dropped)
    }

    /// The reader scrolled within the loaded run: at its bottom they follow
    /// (if the newest message is loaded), anywhere else they do not.
    public mutating func readerMoved(toBottom atBottom: Bool) {
        isFollowing = atBottom && !hasMoreAfter
    }

    /// Decides where a live message for this room goes, and records it when
    /// it joins the loaded run. A message for another room is only stored
    /// and announced (the chat list's unread count tells the reader).
    public mutating func place(_ message: Message) -> LivePlacement {
        guard message.room == room else { return .storeAndAnnounce }
        let cursor = message.cursor
        // Newer pages unloaded: appending would skip them.
        if hasMoreAfter { return .storeAndAnnounce }
        // Older than the loaded run while older pages are unloaded (a peer
        // whose clock runs behind): it belongs up there, not here.
        if hasMoreBefore, let oldest, cursor < oldest { return .storeAndAnnounce }
        extend(from: cursor, to: cursor, adding: 1)
        return isFollowing ? .appendAndFollow : .appendAndAnnounce
    }

    private mutating func include(_ page: HistoryPage) {
        guard let first = page.first, let last = page.last else { return }
        extend(from: first, to: last, adding: page.messages.count)
    }

    private mutating func extend(from first: HistoryCursor, to last: HistoryCursor, adding added: Int) {
        oldest = oldest.map { min($0, first) } ?? first
        newest = newest.map { max($0, last) } ?? last
        count += added
    }
}
