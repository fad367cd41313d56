import ChatCore
import Foundation

/// The conversation list: rooms grouped Today / Yesterday / months / years
/// (ChatCore's `ChatListGrouping`), filtered by one preset at a time.
///
/// Grouping sorts every room, so it runs when the list changes, not per
/// frame; a message in a room already under Today only moves that row.
public struct SideList: Hashable, Sendable {
    public enum Row: Hashable, Sendable {
        case header(String)
        case room(RoomID)
    }

    public private(set) var entries: [RoomID: RoomEntry] = [:]
    public private(set) var rows: [Row] = []
    /// First row drawn.
    public var top = 0
    /// Unread messages in the public room and in all DMs, kept as entries
    /// change, so the terminal title and the narrow status line cost O(1)
    /// a frame rather than a pass over every room.
    public private(set) var publicUnread = 0
    public private(set) var directUnread = 0
    /// Where today began and ends, worked out at the last regroup so a live
    /// message costs no calendar call.
    private var today: Range<Date>?

    public init() {}

    public subscript(room: RoomID) -> RoomEntry? { entries[room] }

    /// Replaces every entry and regroups.
    public mutating func replace(_ list: [RoomEntry], grouping: ChatListGrouping, filter: ChatFilter, keep open: RoomID?) {
        // Titles are peer text: sanitized once here, not on every frame.
        entries = Dictionary(list.map { entry in
            var entry = entry
            entry.title = TerminalText.sanitize(entry.title)
            return (entry.room, entry)
        }, uniquingKeysWith: { first, _ in first })
        publicUnread = 0
        directUnread = 0
        for entry in entries.values { count(entry, sign: 1) }
        regroup(grouping: grouping, filter: filter, keep: open)
    }

    public mutating func regroup(grouping: ChatListGrouping, filter: ChatFilter, keep open: RoomID?) {
        let now = grouping.clock.now()
        let start = grouping.calendar.startOfDay(for: now)
        today = start..<(grouping.calendar.date(byAdding: .day, value: 1, to: start) ?? now.addingTimeInterval(1))
        let shown = entries.values.filter { $0.room == .publicRoom || $0.room == open || filter.matches(stage: $0.stage) }
            .sorted { a, b in
                let (x, y) = (a.lastActivity ?? .distantPast, b.lastActivity ?? .distantPast)
                return x != y ? x > y : a.room.description < b.room.description
            }
        rows = []
        rows.reserveCapacity(shown.count + 16)
        for group in grouping.group(shown, by: { $0.lastActivity }) {
            rows.append(.header(group.title))
            for entry in group.items { rows.append(.room(entry.room)) }
        }
    }

    /// Records activity in `room`. Live activity is today's, so the row
    /// moves to the top of Today without a regroup (no sort of every room);
    /// other dates regroup. Today's group is re-dated at the next `replace`.
    public mutating func touch(_ room: RoomID, at date: Date, title: String, unreadDelta: Int, grouping: ChatListGrouping, filter: ChatFilter, keep open: RoomID?) {
        var entry = entries[room] ?? RoomEntry(room: room, title: TerminalText.sanitize(title))
        entry.lastActivity = max(entry.lastActivity ?? .distantPast, date)
        entry.unread += unreadDelta
        set(entry)
        // Future dates count as now (ChatListGrouping's skew rule).
        guard let today, entry.lastActivity! >= today.lowerBound, grouping.clock.now() < today.upperBound else {
            regroup(grouping: grouping, filter: filter, keep: open)
            return
        }
        let todayTitle = ChatListPeriod.today.title(in: grouping.language)
        // O(position): the busy rooms sit near the top, whatever the list's length.
        if let at = rows.firstIndex(of: .room(room)) {
            if at > 0, rows[0] == .header(todayTitle) {
                moveToTopOfToday(from: at)
                return
            }
            rows.remove(at: at)
            // A group left empty loses its header.
            if at > 0, case .header = rows[at - 1], at == rows.count || { if case .header = rows[at] { true } else { false } }() {
                rows.remove(at: at - 1)
            }
        } else if !(room == .publicRoom || room == open || filter.matches(stage: entry.stage)) {
            return
        }
        if rows.first == .header(todayTitle) {
            rows.insert(.room(room), at: 1)
        } else {
            rows.insert(contentsOf: [.header(todayTitle), .room(room)], at: 0)
        }
    }

    /// Moves the row at `at` to just under Today's header (row 0) by
    /// shifting only the rows above it, instead of a remove and an insert
    /// that each move every row of a 10k-room list.
    private mutating func moveToTopOfToday(from at: Int) {
        let moved = rows[at]
        var index = at
        while index > 1 {
            rows[index] = rows[index - 1]
            index -= 1
        }
        rows[1] = moved
        // A group left empty loses its header (now at `at`, where the room was).
        guard at > 1, case .header = rows[at] else { return }
        if at + 1 == rows.count || { if case .header = rows[at + 1] { true } else { false } }() {
            rows.remove(at: at)
        }
    }

    public mutating func update(_ room: RoomID, _ change: (inout RoomEntry) -> Void) {
        guard var entry = entries[room] else { return }
        change(&entry)
        set(entry)
    }

    /// Stores `entry`, keeping the unread totals.
    private mutating func set(_ entry: RoomEntry) {
        if let old = entries.updateValue(entry, forKey: entry.room) { count(old, sign: -1) }
        count(entry, sign: 1)
    }

    private mutating func count(_ entry: RoomEntry, sign: Int) {
        if entry.room.peer == nil { publicUnread += sign * entry.unread } else { directUnread += sign * entry.unread }
    }

    /// The room `step` rooms after (or before, negative) `room`, wrapping.
    public func room(after room: RoomID?, step: Int) -> RoomID? {
        let rooms = rows.compactMap { if case .room(let id) = $0 { id } else { nil } }
        guard !rooms.isEmpty else { return nil }
        guard let room, let index = rooms.firstIndex(of: room) else { return rooms.first }
        return rooms[((index + step) % rooms.count + rooms.count) % rooms.count]
    }

    /// Scrolls so the row of `room` is within `height` rows.
    public mutating func reveal(_ room: RoomID?, height: Int) {
        guard height > 0 else { return }
        guard let room, let index = rows.firstIndex(of: .room(room)) else { top = min(top, max(0, rows.count - height)); return }
        if index < top { top = max(0, index - 1) }
        if index >= top + height { top = index - height + 1 }
    }
}
