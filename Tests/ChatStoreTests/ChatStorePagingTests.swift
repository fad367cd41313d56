import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

@Suite struct ChatStorePagingTests {
    /// Pages from the newest back to the oldest; returns the messages in
    /// display order and the page count.
    private static func pageBackward(_ store: ChatStore, room: RoomID = .publicRoom, limit: Int) async throws -> ([Message], Int) {
        var collected: [[Message]] = []
        var cursor: HistoryCursor?
        while true {
            let page = try await store.page(room, before: cursor, limit: limit)
            if page.isEmpty { break }
            #expect(page.count <= limit)
            #expect(zip(page, page.dropFirst()).allSatisfy { $0.cursor < $1.cursor }, "each page in display order")
            collected.append(page)
            cursor = page.first?.cursor
        }
        return (collected.reversed().flatMap { $0 }, collected.count)
    }

    /// Pages from the oldest forward to the newest.
    private static func pageForward(_ store: ChatStore, room: RoomID = .publicRoom, limit: Int) async throws -> ([Message], Int) {
        var collected: [Message] = []
        var pages = 0
        var cursor: HistoryCursor?
        while true {
            let page = try await store.page(room, after: cursor, limit: limit)
            if page.isEmpty { break }
            #expect(page.count <= limit)
            collected += page
            pages += 1
            cursor = page.last?.cursor
        }
        return (collected, pages)
    }

    @Test func pageBoundariesInsideRunsOfEqualTimestamps() async throws {
        // 250 messages over 5 milliseconds, inserted shuffled: every page
        // boundary falls inside a run that shares one timestamp.
        var rng = SeededRandom(seed: 7)
        let messages = (0..<250).map { Fixtures.message(at: Fixtures.base + Int64($0 / 50), idBits: rng.next()) }
        let expected = messages.sorted(by: Message.displayOrder)
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        #expect(try await store.insert(contentsOf: messages.shuffled(using: &rng)) == 250)
        for limit in [1, 7, 30, 50, 249, 250, 1000] {
            let (backward, _) = try await Self.pageBackward(store, limit: limit)
            let (forward, _) = try await Self.pageForward(store, limit: limit)
            #expect(backward.map(\.id) == expected.map(\.id), "backward, limit \(limit)")
            #expect(forward.map(\.id) == expected.map(\.id), "forward, limit \(limit)")
        }
    }

    @Test func threeYearDiaryPagedEndToEndBothWays() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Asia/Seoul")!
            let firstDay = calendar.date(from: DateComponents(year: 2022, month: 1, day: 1))!
            let diary = Fixtures.diary(days: 1096, perDay: 10, from: firstDay, calendar: calendar)
            let path = directory.appendingPathComponent("diary.sqlite").path
            do {
                let store = try ChatStore(path: path, localNumber: Fixtures.me)
                #expect(try await store.insert(contentsOf: diary) == 10_960)
                await store.close()
            }
            let store = try ChatStore(path: path, localNumber: Fixtures.me)
            let expected = diary.sorted(by: Message.displayOrder).map(\.id)

            let (backward, backwardPages) = try await Self.pageBackward(store, limit: 30)
            #expect(backward.count == 10_960)
            #expect(Set(backward.map(\.id)).count == 10_960, "nothing repeated")
            #expect(backward.map(\.id) == expected, "nothing missed, in order")
            #expect(backwardPages == 366)  // 10_960 / 30, rounded up

            let (forward, forwardPages) = try await Self.pageForward(store, limit: 30)
            #expect(forward.map(\.id) == expected)
            #expect(forwardPages == 366)
            #expect(forward == backward, "every field read back")
        }
    }

    @Test func historyPagesKnowExactlyWhatLiesBeyond() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(60)
        try await store.insert(contentsOf: messages)

        let newest = try await store.historyPage(.publicRoom, before: nil)
        #expect(newest.messages == Array(messages[30..<60]))
        #expect(newest.hasMoreBefore && !newest.hasMoreAfter)

        let oldest = try await store.historyPage(.publicRoom, before: newest.first)
        #expect(oldest.messages == Array(messages[0..<30]))
        #expect(!oldest.hasMoreBefore, "exactly 60: no wasted empty page")
        #expect(oldest.hasMoreAfter)

        let pastTheStart = try await store.historyPage(.publicRoom, before: oldest.first)
        #expect(pastTheStart.messages.isEmpty)
        #expect(!pastTheStart.hasMoreBefore && pastTheStart.hasMoreAfter)

        let pastTheEnd = try await store.historyPage(.publicRoom, after: newest.last)
        #expect(pastTheEnd.messages.isEmpty)
        #expect(pastTheEnd.hasMoreBefore && !pastTheEnd.hasMoreAfter)

        let empty = try await store.historyPage(.direct(Fixtures.bob), before: nil)
        #expect(empty.messages.isEmpty && !empty.hasMoreBefore && !empty.hasMoreAfter)
    }

    @Test func windowDrivenByStorePages() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(100))
        try await store.markRead(.publicRoom, upTo: Fixtures.numbered(100)[39].cursor)
        var window = HistoryWindow(page: try await store.pageAroundReadMarker(.publicRoom))
        #expect(window.hasMoreAfter && window.hasMoreBefore)
        let live = Fixtures.message(at: Fixtures.base + 200_000, idBits: 1000)
        try await store.insert(live)
        #expect(window.place(live) == .storeAndAnnounce)
        while let cursor = window.newerPageCursor {
            window.loadedNewer(try await store.historyPage(.publicRoom, after: cursor))
        }
        #expect(window.newest == live.cursor)
        #expect(window.isFollowing)
        while let cursor = window.olderPageCursor {
            window.loadedOlder(try await store.historyPage(.publicRoom, before: cursor))
        }
        #expect(window.count == 101)
        #expect(window.place(Fixtures.message(at: Fixtures.base + 300_000, idBits: 1001)) == .appendAndAnnounce)
    }

    @Test func datesBoundPagesExactly() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(10)  // one a second
        try await store.insert(contentsOf: messages)
        let fifth = messages[5].timestamp
        #expect(try await store.page(.publicRoom, after: .justBefore(millis: fifth)).map(\.content) == ["m5", "m6", "m7", "m8", "m9"])
        #expect(try await store.page(.publicRoom, before: .start(ofMillis: fifth)).map(\.content) == ["m0", "m1", "m2", "m3", "m4"])
    }

    @Test func limitsAreClamped() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(5))
        #expect(try await store.page(.publicRoom, before: nil, limit: 0).isEmpty)
        #expect(try await store.page(.publicRoom, after: nil, limit: -3).isEmpty)
        #expect(try await store.page(.publicRoom, after: nil, limit: .max).count == 5)
    }

    @Test func roomsArePagedSeparately() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(40) + Fixtures.numbered(40, room: .direct(Fixtures.bob)).map {
            var message = $0
            message.id = MessageID(millis: message.timestamp, random: (7, UInt64(message.timestamp)))
            return message
        })
        let (publicMessages, _) = try await Self.pageForward(store, limit: 30)
        let (direct, _) = try await Self.pageBackward(store, room: .direct(Fixtures.bob), limit: 30)
        #expect(publicMessages.count == 40 && publicMessages.allSatisfy { $0.room == .publicRoom })
        #expect(direct.count == 40 && direct.allSatisfy { $0.room == .direct(Fixtures.bob) })
    }

    @Test func catchUpAnswersFromACursor() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(50)
        try await store.insert(contentsOf: messages)
        #expect(try await store.newestCursor(.publicRoom) == messages[49].cursor)
        #expect(try await store.oldestCursor(.publicRoom) == messages[0].cursor)
        #expect(try await store.newestCursor(.direct(Fixtures.bob)) == nil)
        #expect(try await store.messages(in: .publicRoom, after: messages[44].cursor, limit: 100) == Array(messages[45...]))
        #expect(try await store.messages(in: .publicRoom, after: nil, limit: 3) == Array(messages[..<3]))
    }

    // MARK: Opening on the read marker

    @Test func openingCentresOnTheReadMarker() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(100)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: messages[49].cursor)
        let page = try await store.pageAroundReadMarker(.publicRoom)
        #expect(page.messages.map(\.content) == (35..<65).map { "m\($0)" })
        #expect(page.readMarker == messages[49].cursor)
        #expect(page.firstUnreadIndex == 15)
        #expect(page.hasMoreBefore && page.hasMoreAfter)
    }

    @Test func markerNearTheEndTopsUpWithReadMessages() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(100)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: messages[95].cursor)
        let page = try await store.pageAroundReadMarker(.publicRoom)
        #expect(page.messages.map(\.content) == (70..<100).map { "m\($0)" })
        #expect(page.firstUnreadIndex == 26)
        #expect(page.hasMoreBefore && !page.hasMoreAfter)
    }

    @Test func markerNearTheStartTopsUpWithUnreadMessages() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(100)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: messages[2].cursor)
        let page = try await store.pageAroundReadMarker(.publicRoom)
        #expect(page.messages.map(\.content) == (0..<30).map { "m\($0)" })
        #expect(page.firstUnreadIndex == 3)
        #expect(!page.hasMoreBefore && page.hasMoreAfter)
    }

    @Test func noMarkerOpensAtTheOldestUnread() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(100))
        let page = try await store.pageAroundReadMarker(.publicRoom, limit: 10)
        #expect(page.messages.map(\.content) == (0..<10).map { "m\($0)" })
        #expect(page.readMarker == nil && page.firstUnreadIndex == 0)
    }

    @Test func nothingUnreadOpensAtTheNewestPage() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(100, from: Fixtures.me))
        let page = try await store.pageAroundReadMarker(.publicRoom)
        #expect(page.messages.map(\.content) == (70..<100).map { "m\($0)" })
        #expect(!page.hasMoreAfter)
        #expect(try await store.pageAroundReadMarker(.direct(Fixtures.carol)).messages.isEmpty)
    }

    // MARK: Index use

    @Test func everyRangeQueryUsesTheIndexWithoutSorting() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(100))
        let queries = [
            SQL.newest, SQL.oldest, SQL.before, SQL.atOrBefore, SQL.after, SQL.newestCursor, SQL.oldestCursor,
            SQL.cursorBefore, SQL.cursorAfter, SQL.countInTimeRange, SQL.unreadAfter,
        ]
        for sql in queries {
            let plan = try await store.queryPlan(sql)
            #expect(plan.count == 1, "\(plan) for \(sql)")
            #expect(plan.allSatisfy { $0.hasPrefix("SEARCH messages USING") && $0.contains("INDEX messages_room_time (room=?") },
                    "\(plan) for \(sql)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "\(plan) for \(sql)")
        }
        #expect(try await store.queryPlan(SQL.allRooms).allSatisfy { !$0.contains("messages") }, "chat list reads rooms only")
    }

    @Test func unreadAndCatchUpReadOnlyWhatTheyReturn() async throws {
        // The sender is in the index: no table seek per counted message.
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: Fixtures.numbered(100))
        for sql in [SQL.unreadAfter, SQL.countInTimeRange] {
            let plan = try await store.queryPlan(sql)
            #expect(plan.allSatisfy { $0.contains("COVERING INDEX messages_room_time") }, "\(plan) for \(sql)")
        }
        // Catch-up pages: a range of arrival numbers in one room, no sort.
        let catchUp = try await store.queryPlan(SQL.publicAfterSeq)
        #expect(catchUp.count == 1 && catchUp.allSatisfy { $0.hasPrefix("SEARCH") && $0.contains("messages_room_seq") }, "\(catchUp)")
        #expect(!catchUp.contains { $0.contains("TEMP B-TREE") }, "\(catchUp)")
        // EXISTS is a subquery: its search line is the one that matters.
        let exists = try await store.queryPlan(SQL.anyUnreadBetween)
        #expect(exists.contains { $0.contains("COVERING INDEX messages_room_time") }, "\(exists)")
    }
}
