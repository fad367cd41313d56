import ChatCore
import Foundation
import Testing
import TestSupport

@Suite struct ChatListGroupingTests {
    private static let english = Locale(identifier: "en_US")
    private static let korean = Locale(identifier: "ko_KR")

    private static func zone(_ identifier: String) -> TimeZone { TimeZone(identifier: identifier)! }

    /// A wall-clock time in `zone`.
    private static func date(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 12, _ min: Int = 0, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min))!
    }

    private struct Room: Hashable {
        var name: String
        var date: Date
    }

    /// Groups `rooms` at `now` and returns (title, room names) per group.
    private static func grouped(
        _ rooms: [Room], now: Date, zone: TimeZone, locale: Locale = english
    ) -> [(title: String, names: [String])] {
        let grouping = ChatListGrouping(clock: ManualClock(now: now), timeZone: zone, locale: locale)
        return grouping.group(rooms, by: { $0.date }).map { ($0.title, $0.items.map(\.name)) }
    }

    private static func titles(_ groups: [(title: String, names: [String])]) -> [String] { groups.map(\.title) }

    // MARK: New Year

    @Test func newYearsDayPutsLastYearBelowYesterday() {
        let seoul = Self.zone("Asia/Seoul")
        let rooms = [
            Room(name: "old", date: Self.date(2023, 6, 1, in: seoul)),
            Room(name: "dec15", date: Self.date(2024, 12, 15, in: seoul)),
            Room(name: "newyear", date: Self.date(2025, 1, 1, 0, 5, in: seoul)),
            Room(name: "eve", date: Self.date(2024, 12, 31, 23, 55, in: seoul)),
            Room(name: "feb", date: Self.date(2024, 2, 10, in: seoul)),
        ]
        let groups = Self.grouped(rooms, now: Self.date(2025, 1, 1, 10, in: seoul), zone: seoul)
        #expect(Self.titles(groups) == ["Today", "Yesterday", "2024", "2023"])
        #expect(groups[2].names == ["dec15", "feb"])
    }

    @Test func januaryOfThisYearRanksAboveLastYear() {
        // The seed's bug: sorting labels put "2024" above "January".
        let utc = Self.zone("UTC")
        let rooms = [
            Room(name: "y2024", date: Self.date(2024, 12, 31, in: utc)),
            Room(name: "jan1", date: Self.date(2025, 1, 1, in: utc)),
            Room(name: "y2023", date: Self.date(2023, 1, 1, in: utc)),
        ]
        let groups = Self.grouped(rooms, now: Self.date(2025, 1, 5, in: utc), zone: utc)
        #expect(Self.titles(groups) == ["January", "2024", "2023"])
    }

    // MARK: Month ends and leap day

    @Test func monthEnds() {
        let utc = Self.zone("UTC")
        let rooms = [
            Room(name: "mar30", date: Self.date(2025, 3, 30, 23, 59, in: utc)),
            Room(name: "mar1", date: Self.date(2025, 3, 1, 0, 0, in: utc)),
            Room(name: "feb28", date: Self.date(2025, 2, 28, 23, 59, in: utc)),
            Room(name: "jan31", date: Self.date(2025, 1, 31, 23, 59, in: utc)),
            Room(name: "mar31", date: Self.date(2025, 3, 31, 0, 0, in: utc)),
        ]
        let lastMinuteOfMarch = Self.grouped(rooms, now: Self.date(2025, 3, 31, 23, 59, in: utc), zone: utc)
        #expect(lastMinuteOfMarch.map(\.title) == ["Today", "Yesterday", "March", "February", "January"])
        #expect(lastMinuteOfMarch.map(\.names) == [["mar31"], ["mar30"], ["mar1"], ["feb28"], ["jan31"]])

        let firstMinuteOfApril = Self.grouped(rooms, now: Self.date(2025, 4, 1, 0, 0, in: utc), zone: utc)
        #expect(firstMinuteOfApril.map(\.title) == ["Yesterday", "March", "February", "January"])
        #expect(firstMinuteOfApril[0].names == ["mar31"])
        #expect(firstMinuteOfApril[1].names == ["mar30", "mar1"])
    }

    @Test func leapDay() {
        let utc = Self.zone("UTC")
        let rooms = [
            Room(name: "feb29", date: Self.date(2024, 2, 29, 0, 0, in: utc)),
            Room(name: "feb28", date: Self.date(2024, 2, 28, 23, 59, in: utc)),
            Room(name: "feb1", date: Self.date(2024, 2, 1, in: utc)),
        ]
        let onLeapDay = Self.grouped(rooms, now: Self.date(2024, 2, 29, 8, in: utc), zone: utc)
        #expect(onLeapDay.map(\.title) == ["Today", "Yesterday", "February"])
        #expect(onLeapDay.map(\.names) == [["feb29"], ["feb28"], ["feb1"]])

        let dayAfter = Self.grouped(rooms, now: Self.date(2024, 3, 1, 8, in: utc), zone: utc)
        #expect(dayAfter.map(\.title) == ["Yesterday", "February"])
        #expect(dayAfter.map(\.names) == [["feb29"], ["feb28", "feb1"]])
    }

    // MARK: Daylight saving time

    @Test func shortSpringDayIsStillOneDay() {
        // New York, 2024-03-10 had 23 hours. 24 hours before "now" is still
        // March 9 on the wall clock, which is not yesterday.
        let newYork = Self.zone("America/New_York")
        let now = Self.date(2024, 3, 11, 0, 30, in: newYork)
        let rooms = [
            Room(name: "mar9late", date: Self.date(2024, 3, 9, 23, 45, in: newYork)),
            Room(name: "mar10early", date: Self.date(2024, 3, 10, 0, 15, in: newYork)),
        ]
        #expect(now.timeIntervalSince(rooms[0].date) < 24 * 3600)
        let groups = Self.grouped(rooms, now: now, zone: newYork)
        #expect(groups.map(\.title) == ["Yesterday", "March"])
        #expect(groups.map(\.names) == [["mar10early"], ["mar9late"]])
    }

    @Test func longAutumnDayIsStillOneDay() {
        // 2024-11-03 had 25 hours: its first minutes are more than 24 hours
        // before the next day's first minutes, and still yesterday.
        let newYork = Self.zone("America/New_York")
        let now = Self.date(2024, 11, 4, 0, 30, in: newYork)
        let rooms = [
            Room(name: "nov3early", date: Self.date(2024, 11, 3, 0, 10, in: newYork)),
            Room(name: "nov2late", date: Self.date(2024, 11, 2, 23, 50, in: newYork)),
        ]
        #expect(now.timeIntervalSince(rooms[0].date) > 25 * 3600)
        let groups = Self.grouped(rooms, now: now, zone: newYork)
        #expect(groups.map(\.title) == ["Yesterday", "November"])
        #expect(groups.map(\.names) == [["nov3early"], ["nov2late"]])
    }

    // MARK: Time zones

    @Test func theSameInstantsGroupByTheInjectedTimeZone() {
        let now = ISO8601DateFormatter().date(from: "2025-01-01T02:00:00Z")!
        let rooms = [
            Room(name: "a", date: ISO8601DateFormatter().date(from: "2024-12-31T20:00:00Z")!),
            Room(name: "b", date: ISO8601DateFormatter().date(from: "2024-12-01T12:00:00Z")!),
        ]
        // UTC: now is Jan 1 02:00, a is Dec 31 20:00.
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: Self.zone("UTC"))) == ["Yesterday", "2024"])
        // Seoul (+9): now is Jan 1 11:00, a is Jan 1 05:00.
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: Self.zone("Asia/Seoul"))) == ["Today", "2024"])
        // Los Angeles (-8): still 2024; a is today, b is this year's December.
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: Self.zone("America/Los_Angeles"))) == ["Today", "December"])
        // Kolkata (+5:30): now Jan 1 07:30, a Jan 1 01:30.
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: Self.zone("Asia/Kolkata"))) == ["Today", "2024"])
        // Kiritimati (+14): now Jan 1 16:00, a Jan 1 10:00.
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: Self.zone("Pacific/Kiritimati"))) == ["Today", "2024"])
    }

    // MARK: Clock skew

    @Test func futureDatesCountAsNowAndHeadTheList() {
        let utc = Self.zone("UTC")
        let now = Self.date(2025, 5, 10, 12, in: utc)
        let rooms = [
            Room(name: "morning", date: Self.date(2025, 5, 10, 9, in: utc)),
            Room(name: "tonight", date: Self.date(2025, 5, 10, 18, in: utc)),
            Room(name: "nextMonth", date: Self.date(2025, 6, 1, in: utc)),
            Room(name: "nextYear", date: Self.date(2026, 1, 1, in: utc)),
            Room(name: "april", date: Self.date(2025, 4, 1, in: utc)),
        ]
        let groups = Self.grouped(rooms, now: now, zone: utc)
        #expect(groups.map(\.title) == ["Today", "April"])
        #expect(groups[0].names == ["nextYear", "nextMonth", "tonight", "morning"])
    }

    // MARK: Labels and order

    @Test func koreanLabels() {
        let seoul = Self.zone("Asia/Seoul")
        let rooms = [
            Room(name: "today", date: Self.date(2025, 3, 15, 9, in: seoul)),
            Room(name: "yesterday", date: Self.date(2025, 3, 14, in: seoul)),
            Room(name: "feb", date: Self.date(2025, 2, 3, in: seoul)),
            Room(name: "old", date: Self.date(2024, 7, 7, in: seoul)),
        ]
        let now = Self.date(2025, 3, 15, 10, in: seoul)
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: seoul, locale: Self.korean)) == ["오늘", "어제", "02월", "2024년"])
        #expect(Self.titles(Self.grouped(rooms, now: now, zone: seoul, locale: Self.english)) == ["Today", "Yesterday", "February", "2024"])
        #expect(ChatListGrouping.Language(locale: Locale(identifier: "ko")) == .korean)
        #expect(ChatListGrouping.Language(locale: Locale(identifier: "fr_FR")) == .english)
        #expect(ChatListPeriod.month(year: 2025, month: 11).title(in: .korean) == "11월")
    }

    @Test func everyMonthOfTheYearNewestFirstThenYearsNewestFirst() {
        let utc = Self.zone("UTC")
        var rooms = (1...12).map { Room(name: "m\($0)", date: Self.date(2025, $0, 2, in: utc)) }
        rooms += (2019...2024).map { Room(name: "y\($0)", date: Self.date($0, 6, 1, in: utc)) }
        rooms.shuffle()
        let groups = Self.grouped(rooms, now: Self.date(2025, 12, 31, 12, in: utc), zone: utc)
        let months = ["December", "November", "October", "September", "August", "July",
                      "June", "May", "April", "March", "February", "January"]
        #expect(Self.titles(groups) == months + ["2024", "2023", "2022", "2021", "2020", "2019"])
    }

    @Test func periodsOrderByRankNotByLabel() {
        let periods: [ChatListPeriod] = [.undated, .year(2023), .month(year: 2025, month: 1), .year(2024), .today,
                                         .month(year: 2025, month: 2), .yesterday]
        #expect(periods.sorted() == [.today, .yesterday, .month(year: 2025, month: 2), .month(year: 2025, month: 1),
                                     .year(2024), .year(2023), .undated])
    }

    @Test func itemsNewestFirstWithTiesInInputOrderAndUndatedLast() {
        let utc = Self.zone("UTC")
        let noon = Self.date(2025, 5, 10, 12, in: utc)
        let grouping = ChatListGrouping(clock: ManualClock(now: noon), timeZone: utc, locale: Self.english)
        let items: [(String, Date?)] = [("a", noon.addingTimeInterval(-60)), ("b", nil), ("c", noon), ("d", noon.addingTimeInterval(-60))]
        let groups = grouping.group(items, by: { $0.1 })
        #expect(groups.map(\.title) == ["Today", "No messages"])
        #expect(groups.map { $0.items.map(\.0) } == [["c", "a", "d"], ["b"]])
        #expect(grouping.group([Room](), by: { $0.date }).isEmpty)
    }

    @Test func periodOfADate() {
        let utc = Self.zone("UTC")
        let now = Self.date(2025, 5, 10, 12, in: utc)
        let grouping = ChatListGrouping(clock: ManualClock(now: now), timeZone: utc, locale: Self.english)
        #expect(grouping.period(of: Self.date(2025, 5, 9, 0, 0, in: utc), now: now) == .yesterday)
        #expect(grouping.period(of: Self.date(2025, 5, 8, 23, 59, in: utc), now: now) == .month(year: 2025, month: 5))
        #expect(grouping.period(of: Self.date(2024, 12, 31, 23, 59, in: utc), now: now) == .year(2024))
    }
}
