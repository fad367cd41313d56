import ChatCore
import Foundation

/// `/search` results as the full-screen client lists them over the room:
/// one row a result, newest stored first, one of them selected. Enter opens
/// the selected result's room on the page around it.
public struct SearchList: Hashable, Sendable {
    /// One result, sanitized once when it arrives (it is peer text).
    public struct Item: Hashable, Sendable {
        public var room: RoomID
        /// `#public` or `@bob`.
        public var roomLabel: String
        public var sender: String
        /// "2026-11-23 12:00" in the screen's time zone.
        public var time: String
        /// The message text on one line (newlines and controls made inert).
        public var text: String
        public var cursor: HistoryCursor

        public init(_ message: Message, roomLabel: String, sender: String, calendar: Calendar) {
            room = message.room
            self.roomLabel = TerminalText.sanitize(roomLabel)
            self.sender = TerminalText.sanitize(sender)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: message.sentAt)
            time = "\(parts.year ?? 0)-\(ShownMessage.twoDigits(parts.month ?? 0))-\(ShownMessage.twoDigits(parts.day ?? 0)) "
                + "\(ShownMessage.twoDigits(parts.hour ?? 0)):\(ShownMessage.twoDigits(parts.minute ?? 0))"
            text = TerminalText.sanitize(message.content.split(whereSeparator: \.isNewline).joined(separator: " "))
            cursor = message.cursor
        }
    }

    /// What was searched for (sanitized).
    public let query: String
    public private(set) var items: [Item]
    /// Index into `items`.
    public var selected = 0
    /// First item drawn.
    public var top = 0
    /// More results lie beyond the loaded ones.
    public var hasMore: Bool
    /// The next page was asked for and has not come back.
    public var loading = false

    public init(query: String, items: [Item], hasMore: Bool) {
        self.query = TerminalText.sanitize(query)
        self.items = items
        self.hasMore = hasMore
    }

    /// The next page came back.
    public mutating func append(_ more: [Item], hasMore: Bool) {
        items += more
        self.hasMore = hasMore
        loading = false
    }

    /// Moves the selection by `step`, keeping it within `rows` drawn rows.
    public mutating func move(by step: Int, rows: Int) {
        guard !items.isEmpty else { return }
        selected = min(max(0, selected + step), items.count - 1)
        let rows = max(1, rows)
        if selected < top { top = selected }
        if selected >= top + rows { top = selected - rows + 1 }
    }

    public var selectedItem: Item? { items.indices.contains(selected) ? items[selected] : nil }
}
