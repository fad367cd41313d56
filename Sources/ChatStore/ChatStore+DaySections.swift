import ChatCore
import Foundation

extension ChatStore {
    /// The days of a room's history that have messages, oldest first, with
    /// each day's message count and first and last cursor (to jump to a
    /// day: `page(room, after: .justBefore(millis:))` of its start).
    ///
    /// Walks the (room, sent_at, id) index from day to day: per day one seek
    /// to its first message, one count over its index range and one seek to
    /// its last, so the cost grows with the days shown, not by loading and
    /// sorting the room. Days begin at midnight in `calendar.timeZone`.
    ///
    /// - Parameters:
    ///   - interval: only messages in it (nil: the whole room); a day the
    ///     interval cuts counts and bounds only its messages inside it.
    ///   - limit: at most this many days.
    public func daySections(
        _ room: RoomID, calendar: Calendar, in interval: DateInterval? = nil, limit: Int = .max
    ) throws(StoreError) -> [DaySection] {
        let endMillis = interval.map { Timestamp.millis(from: $0.end) }
        var lower = interval.map { HistoryCursor.justBefore(millis: Timestamp.millis(from: $0.start)) }
        var sections: [DaySection] = []
        while sections.count < limit {
            let next: HistoryCursor?
            if let lower {
                next = try cursor(SQL.cursorAfter, room: room, from: lower)
            } else {
                next = try oldestCursor(room)
            }
            guard let first = next else { break }
            if let endMillis, first.timestamp >= endMillis { break }
            guard let day = calendar.dateInterval(of: .day, for: Timestamp.date(fromMillis: first.timestamp)) else { break }
            // The day's end in ms, rounded up so no message of the day is cut.
            let dayEnd = min(Int64((day.end.timeIntervalSince1970 * 1000).rounded(.up)), endMillis ?? .max)
            let count = try db().withStatement(SQL.countInTimeRange) { statement throws(StoreError) in
                try statement.bind(room.description, at: 1)
                try statement.bind(first.timestamp, at: 2)
                try statement.bind(dayEnd, at: 3)
                return try statement.step() ? Int(statement.int64(0)) : 0
            }
            guard let last = try cursor(SQL.cursorBefore, room: room, from: .start(ofMillis: dayEnd)) else { break }
            let parts = calendar.dateComponents([.year, .month, .day], from: day.start)
            sections.append(DaySection(
                year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0, start: day.start,
                messageCount: count, first: first, last: last))
            lower = last
        }
        return sections
    }
}
