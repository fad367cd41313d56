import ChatCore
import Foundation
import Testing
@testable import ChatStore

@Suite struct DaySectionTests {
    private static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    private static func millis(_ calendar: Calendar, _ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int = 0) -> Int64 {
        Timestamp.millis(from: calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min))!)
    }

    @Test func diaryHasOneSectionPerDayOfTenMessages() async throws {
        let seoul = Self.calendar("Asia/Seoul")
        let firstDay = seoul.date(from: DateComponents(year: 2022, month: 1, day: 1))!
        let diary = Fixtures.diary(days: 1096, perDay: 10, from: firstDay, calendar: seoul)
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: diary)

        let sections = try await store.daySections(.publicRoom, calendar: seoul)
        #expect(sections.count == 1096)
        #expect(sections.allSatisfy { $0.messageCount == 10 })
        #expect((sections.first?.year, sections.first?.month, sections.first?.day) == (2022, 1, 1))
        #expect((sections.last?.year, sections.last?.month, sections.last?.day) == (2024, 12, 31))
        #expect(sections.contains { $0.month == 2 && $0.day == 29 }, "2024 is a leap year")
        // A section's cursors bound exactly its messages.
        let sorted = diary.sorted(by: Message.displayOrder)
        let day100 = sections[100]
        let page = try await store.page(.publicRoom, after: .justBefore(millis: day100.first.timestamp), limit: 10)
        #expect(page.first?.cursor == day100.first && page.last?.cursor == day100.last)
        #expect(page == Array(sorted[1000..<1010]))

        // Limited and bounded walks.
        #expect(try await store.daySections(.publicRoom, calendar: seoul, limit: 3).map(\.day) == [1, 2, 3])
        let march2023 = DateInterval(
            start: seoul.date(from: DateComponents(year: 2023, month: 3, day: 1))!,
            end: seoul.date(from: DateComponents(year: 2023, month: 4, day: 1))!)
        let inMarch = try await store.daySections(.publicRoom, calendar: seoul, in: march2023)
        #expect(inMarch.count == 31 && inMarch.allSatisfy { $0.year == 2023 && $0.month == 3 })
    }

    @Test func daysFollowTheCalendarsTimeZone() async throws {
        let utc = Self.calendar("UTC")
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        // 23:30 and 00:30 UTC: two days in UTC, one day in Seoul (+9).
        try await store.insert(Fixtures.message(at: Self.millis(utc, 2025, 3, 1, 23, 30), idBits: 1))
        try await store.insert(Fixtures.message(at: Self.millis(utc, 2025, 3, 2, 0, 30), idBits: 2))
        #expect(try await store.daySections(.publicRoom, calendar: utc).map(\.day) == [1, 2])
        let seoul = try await store.daySections(.publicRoom, calendar: Self.calendar("Asia/Seoul"))
        #expect(seoul.map(\.day) == [2] && seoul.first?.messageCount == 2)
        // An interval that cuts the Seoul day counts only what is inside it.
        let fromMidnightUTC = DateInterval(start: Timestamp.date(fromMillis: Self.millis(utc, 2025, 3, 2, 0)), duration: 86_400)
        let cut = try await store.daySections(.publicRoom, calendar: Self.calendar("Asia/Seoul"), in: fromMidnightUTC)
        #expect(cut.map(\.messageCount) == [1])
        #expect(cut.first?.first == cut.first?.last)
    }

    @Test func aDSTDayIsOneSection() async throws {
        // New York, 2024-03-10 has 23 hours; 2024-11-03 has 25.
        let newYork = Self.calendar("America/New_York")
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let times = [
            Self.millis(newYork, 2024, 3, 10, 0, 30), Self.millis(newYork, 2024, 3, 10, 23, 30),
            Self.millis(newYork, 2024, 3, 11, 0, 10),
            Self.millis(newYork, 2024, 11, 3, 0, 30), Self.millis(newYork, 2024, 11, 3, 23, 50),
            Self.millis(newYork, 2024, 11, 4, 0, 5),
        ]
        try await store.insert(contentsOf: times.enumerated().map { Fixtures.message(at: $1, idBits: UInt64($0)) })
        let sections = try await store.daySections(.publicRoom, calendar: newYork)
        #expect(sections.map { "\($0.month)/\($0.day):\($0.messageCount)" } == ["3/10:2", "3/11:1", "11/3:2", "11/4:1"])
        #expect(sections.map(\.start) == sections.map { newYork.startOfDay(for: $0.start) })
    }

    @Test func emptyRoomHasNoSections() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        #expect(try await store.daySections(.publicRoom, calendar: Self.calendar("UTC")).isEmpty)
    }

    @Test func aLoadedPageSplitsIntoDays() {
        let utc = Self.calendar("UTC")
        let messages = [
            Fixtures.message(at: Self.millis(utc, 2025, 1, 31, 23, 59), idBits: 1),
            Fixtures.message(at: Self.millis(utc, 2025, 2, 1, 0, 0), idBits: 2),
            Fixtures.message(at: Self.millis(utc, 2025, 2, 1, 12, 0), idBits: 3),
            Fixtures.message(at: Self.millis(utc, 2025, 2, 3, 8, 0), idBits: 4),
        ]
        let sections = DaySection.sections(of: messages, calendar: utc)
        #expect(sections.map { "\($0.month)/\($0.day)" } == ["1/31", "2/1", "2/3"])
        #expect(sections.map(\.messageCount) == [1, 2, 1])
        #expect(sections[1].first == messages[1].cursor && sections[1].last == messages[2].cursor)
        #expect(DaySection.sections(of: [], calendar: utc).isEmpty)
    }
}
