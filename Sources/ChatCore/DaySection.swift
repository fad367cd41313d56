import Foundation

/// One calendar day of a room's history: which day, how many messages, and
/// the first and last of them (to page straight to the day, or to slice a
/// loaded page into day sections).
///
/// Days begin where the injected calendar's time zone says they do.
public struct DaySection: Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    /// Midnight at the start of the day, in the calendar's time zone.
    public var start: Date
    /// Messages that day (in the whole room for a store query; in the
    /// messages given for `sections(of:calendar:)`).
    public var messageCount: Int
    public var first: HistoryCursor
    public var last: HistoryCursor

    public init(year: Int, month: Int, day: Int, start: Date, messageCount: Int, first: HistoryCursor, last: HistoryCursor) {
        self.year = year
        self.month = month
        self.day = day
        self.start = start
        self.messageCount = messageCount
        self.first = first
        self.last = last
    }

    /// Splits messages already in display order (a loaded page) into days,
    /// oldest first. One calendar lookup per day, not per message.
    public static func sections(of messages: [Message], calendar: Calendar) -> [DaySection] {
        var sections: [DaySection] = []
        var end = Date.distantPast
        for message in messages {
            let date = message.sentAt
            if sections.isEmpty || date >= end || date < sections[sections.count - 1].start {
                guard let interval = calendar.dateInterval(of: .day, for: date) else { continue }
                let parts = calendar.dateComponents([.year, .month, .day], from: interval.start)
                sections.append(DaySection(
                    year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0, start: interval.start,
                    messageCount: 0, first: message.cursor, last: message.cursor))
                end = interval.end
            }
            sections[sections.count - 1].messageCount += 1
            sections[sections.count - 1].last = message.cursor
        }
        return sections
    }
}
