import ChatCore
import Foundation

/// The open room: the loaded run of messages, where the reader is, and the
/// paging and reading bookkeeping around it.
public struct RoomView: Hashable, Sendable {
    /// Where the view is pinned.
    public enum Anchor: Hashable, Sendable {
        /// The newest loaded message sits on the last row.
        case bottom
        /// `messages[index]` is the first message drawn.
        case top(Int)
    }

    public let room: RoomID
    public var title: String
    /// The loaded run, display order.
    public private(set) var messages: [ShownMessage] = []
    public private(set) var window: HistoryWindow
    /// The unread line goes before this message (fixed when the room opened,
    /// so it stays where the reader left off while they read).
    public internal(set) var unreadLineBefore: HistoryCursor?
    public var anchor: Anchor
    /// New messages the reader has not been shown: below the view, or not
    /// loaded at all (the "N new" indicator).
    public var newBelow = 0
    /// A page request in flight, so holding PgUp asks once.
    public var pending: PageDirection?
    /// The read marker as far as this screen moved it.
    public var markedUpTo: HistoryCursor?
    /// The store's read marker as this screen knows it: the page's at open,
    /// then moved by what the screen marked. Messages from others after it
    /// are unseen; the marker never crosses one that was not drawn.
    public internal(set) var readMarker: HistoryCursor?
    /// The newest message the reader was shown in a frame, or chose to skip
    /// past (End, sending). Following never scrolls a newer message from
    /// others off the top before a frame showed it (catch-up bursts).
    public internal(set) var followedThrough: HistoryCursor?
    /// The newest message the reader jumped to (End, sending): unseen ones
    /// up to it stay unread, but the view does not stop for them.
    public internal(set) var skippedThrough: HistoryCursor?
    /// When each message drawn in full on the last frame was first drawn
    /// (in a run of frames that kept it whole): seen once on screen for
    /// `ScreenReducer.dwell`. See RoomView+Reading.swift.
    public internal(set) var shownSince: [MessageID: Duration] = [:]
    /// Loaded messages the filter keeps off the screen, so an empty room
    /// can say so.
    public internal(set) var hiddenByFilter = 0
    /// Messages arrived (live or paged) since the reducer last checked that
    /// following scrolls no unseen one away; kept while a panel hides the
    /// room, so closing it checks what came meanwhile.
    public internal(set) var unsettledArrivals = false
    public var delivery: [MessageID: DeliveryState] = [:]

    /// Opens on `page`: pinned a couple of messages above the unread line
    /// when there is one, else at the bottom.
    public init(page: HistoryPage, title: String, me: NodeNumber, shown: [ShownMessage]) {
        room = page.room
        self.title = title
        window = HistoryWindow(page: page)
        messages = shown
        // Unset, so the first frame reports what it shows and the store
        // answers with the true unread count for the badge.
        markedUpTo = nil
        let marker = page.readMarker
        readMarker = marker
        let firstUnread = shown.firstIndex { item in !item.isOwn && (marker.map { item.cursor > $0 } ?? true) }
        if let firstUnread {
            unreadLineBefore = shown[firstUnread].cursor
            anchor = .top(max(0, firstUnread - 2))
            followedThrough = marker
        } else {
            anchor = .bottom
            // Nothing unseen is loaded: following may scroll any of it.
            followedThrough = shown.last.map { max($0.cursor, marker ?? $0.cursor) } ?? marker
        }
    }

    /// Index of the message the unread line precedes, if loaded.
    public var unreadLineIndex: Int? {
        guard let unreadLineBefore else { return nil }
        return messages.firstIndex { $0.cursor == unreadLineBefore }
    }

    /// Adds a page the session loaded; older pages shift the anchor so the
    /// reader keeps looking at the same message.
    public mutating func add(_ page: HistoryPage, _ direction: PageDirection, shown: [ShownMessage]) {
        pending = nil
        let known = Set(messages.map(\.message.id))
        let fresh = shown.filter { !known.contains($0.message.id) }
        switch direction {
        case .older:
            window.loadedOlder(page)
            messages.insert(contentsOf: fresh, at: 0)
            if case .top(let index) = anchor { anchor = .top(index + fresh.count) }
        case .newer:
            window.loadedNewer(page)
            messages.append(contentsOf: fresh)
            if !window.hasMoreAfter && newBelow > 0 { newBelow = max(0, newBelow - fresh.count) }
        }
    }

    /// Places a live message by the three cases: following -> appended and
    /// shown; scrolled back with the newest loaded -> appended, counted as
    /// new below; newer pages not loaded -> not added (it would sit after a
    /// gap), only counted.
    public mutating func place(_ shown: ShownMessage) -> HistoryWindow.LivePlacement {
        // Where it goes in display order, searched from the end (live
        // messages are almost always the newest): a copy already loaded
        // sits right there, so no scan of the whole run is needed.
        let index = messages.lastIndex { Message.displayOrder($0.message, shown.message) }.map { $0 + 1 } ?? 0
        if index < messages.count, messages[index].message.id == shown.message.id { return .appendAndFollow }
        let placement = window.place(shown.message)
        switch placement {
        case .appendAndFollow, .appendAndAnnounce:
            messages.insert(shown, at: index)
            if case .top(let top) = anchor, index <= top { anchor = .top(top + 1) }
            if placement == .appendAndAnnounce && !shown.isOwn { newBelow += 1 }
            if placement == .appendAndFollow { keepNewestWhileFollowing() }
        case .storeAndAnnounce:
            if !shown.isOwn { newBelow += 1 }
        }
        return placement
    }

    /// Messages kept loaded while the reader follows the conversation; the
    /// run is cut back to this once it is twice as long. Scrolling up pages
    /// the rest back in from the store.
    public static let keptWhileFollowing = 1_000

    /// A room left open on a busy conversation grew by every message, for
    /// good (memory, and work per message and frame); following, the reader
    /// sees only the newest screens, so the oldest part is let go.
    private mutating func keepNewestWhileFollowing() {
        // Not while a page is on its way: an older page arriving after the
        // cut would sit above a gap that could never be paged back.
        guard anchor == .bottom, pending == nil, messages.count >= 2 * Self.keptWhileFollowing else { return }
        let dropped = messages.count - Self.keptWhileFollowing
        for shown in messages[..<dropped] { delivery[shown.message.id] = nil }
        messages.removeFirst(dropped)
        window.droppedOldest(dropped, newOldest: messages[0].cursor)
    }

    /// The reader asked for the newest (End, sending, or scrolling down to
    /// it): unseen messages jumped over stay unread, and following no
    /// longer stops for them.
    public mutating func reachedBottom() {
        followAgain()
        if let newest = messages.last?.cursor {
            skippedThrough = max(skippedThrough ?? newest, newest)
            drew(through: newest)
        }
    }

    /// The view reached the newest by itself (it fits on the screen).
    mutating func followAgain() {
        anchor = .bottom
        window.readerMoved(toBottom: true)
        if !window.hasMoreAfter { newBelow = 0 }
    }

    public mutating func leftBottom(top: Int) {
        anchor = .top(top)
        window.readerMoved(toBottom: false)
    }
}
