import Foundation

/// Groups the chat list by date, newest first: Today, Yesterday, each month
/// of the current year, then one group per earlier year (see
/// `ChatListPeriod` for the order).
///
/// Everything that decides a day is injected: the clock says when "now" is,
/// the calendar and time zone say where days, months and years begin (so a
/// 23- or 25-hour DST day is still one day), and the locale picks the labels.
///
/// Future dates (a peer whose clock runs ahead) are grouped as if they were
/// now, so they land in Today rather than in a group of their own; they still
/// sort by their own date, so they head the list.
///
/// Cost: one sort of the items plus a handful of calendar calls per group,
/// not per item (10k rooms group in a few milliseconds).
public struct ChatListGrouping: Sendable {
    /// The label languages. Any locale other than Korean gets English.
    public enum Language: Hashable, Sendable {
        case english, korean

        public init(locale: Locale) {
            let code = locale.identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).first
            self = code?.lowercased() == "ko" ? .korean : .english
        }
    }

    public let clock: any ChatClock
    /// The calendar, set to `timeZone`.
    public let calendar: Calendar
    public let language: Language

    public init(clock: any ChatClock, calendar: Calendar = Calendar(identifier: .gregorian), timeZone: TimeZone, locale: Locale) {
        var calendar = calendar
        calendar.timeZone = timeZone
        calendar.locale = locale
        self.clock = clock
        self.calendar = calendar
        language = Language(locale: locale)
    }

    /// The period `date` belongs to, judged at `now`.
    public func period(of date: Date, now: Date) -> ChatListPeriod {
        Boundaries(calendar: calendar, now: now).period(of: date, calendar: calendar)
    }

    /// Groups `items` by `date`, in display order; items with no date go in
    /// a last `.undated` group. Items within a group are newest first; equal
    /// dates keep their input order. Empty groups are left out.
    public func group<Item>(_ items: [Item], by date: (Item) -> Date?) -> [ChatListGroup<Item>] {
        var dated: [(date: Date, index: Int)] = []
        var undated: [Item] = []
        dated.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let itemDate = date(item) { dated.append((itemDate, index)) } else { undated.append(item) }
        }
        dated.sort { $0.date != $1.date ? $0.date > $1.date : $0.index < $1.index }

        let boundaries = Boundaries(calendar: calendar, now: clock.now())
        var groups: [ChatListGroup<Item>] = []
        // The current group holds every date from its start on; the sweep
        // only asks the calendar again when a date falls before that start.
        var currentStart = Date.distantFuture
        for entry in dated {
            if entry.date < currentStart || groups.isEmpty {
                let period = boundaries.period(of: entry.date, calendar: calendar)
                currentStart = boundaries.start(of: period, containing: entry.date, calendar: calendar)
                groups.append(ChatListGroup(period: period, title: period.title(in: language), items: []))
            }
            groups[groups.count - 1].items.append(items[entry.index])
        }
        if !undated.isEmpty {
            groups.append(ChatListGroup(period: .undated, title: ChatListPeriod.undated.title(in: language), items: undated))
        }
        return groups
    }

    /// Groups dated items (`group(_:by:)` with a non-optional date).
    public func group<Item>(_ items: [Item], by date: (Item) -> Date) -> [ChatListGroup<Item>] {
        group(items, by: { Optional(date($0)) })
    }
}

/// Where today, yesterday and the current year begin, computed once per
/// grouping; month and year starts are computed as the sweep reaches them.
private struct Boundaries {
    let now: Date
    let startOfToday: Date
    let startOfYesterday: Date
    let startOfYear: Date
    let currentYear: Int

    init(calendar: Calendar, now: Date) {
        self.now = now
        startOfToday = calendar.startOfDay(for: now)
        // By calendar arithmetic, not 24 hours: DST days are 23 or 25 hours.
        startOfYesterday = calendar.date(byAdding: .day, value: -1, to: startOfToday)
            ?? startOfToday.addingTimeInterval(-86_400)
        currentYear = calendar.component(.year, from: now)
        startOfYear = calendar.dateInterval(of: .year, for: now)?.start ?? startOfYesterday
    }

    func period(of date: Date, calendar: Calendar) -> ChatListPeriod {
        // A date in the future counts as now (the documented skew rule).
        let date = min(date, now)
        if date >= startOfToday { return .today }
        if date >= startOfYesterday { return .yesterday }
        let parts = calendar.dateComponents([.year, .month], from: date)
        let year = parts.year ?? currentYear
        if date >= startOfYear { return .month(year: year, month: parts.month ?? 1) }
        return .year(year)
    }

    /// The earliest date still in `period` (the group also ends where the
    /// previous, newer group begins).
    func start(of period: ChatListPeriod, containing date: Date, calendar: Calendar) -> Date {
        switch period {
        case .today: startOfToday
        case .yesterday: startOfYesterday
        case .month: calendar.dateInterval(of: .month, for: date)?.start ?? date
        case .year: calendar.dateInterval(of: .year, for: date)?.start ?? date
        case .undated: .distantPast
        }
    }
}
