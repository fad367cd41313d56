import ChatCore
import ChatScreen
import Foundation
import Testing

@Suite struct SideListTests {
    @Test func koreanGroupsAcrossAYearBoundary() {
        // 2027-01-01 10:00 in Seoul (01:00 UTC).
        let now = Date(timeIntervalSince1970: 1_798_765_200)
        let fixture = ScreenFixture(now: now, locale: "ko_KR", timeZone: "Asia/Seoul")
        var state = fixture.state()
        state.feed(.rooms([
            RoomEntry(room: .publicRoom, title: "public", lastActivity: now.addingTimeInterval(-600)),
            RoomEntry(room: .direct(ScreenFixture.bob), title: "bob", unread: 2, lastActivity: now.addingTimeInterval(-13 * 3600)),  // 2026-12-31 21:00
            RoomEntry(room: .direct(ScreenFixture.carol), title: "캐럴", lastActivity: now.addingTimeInterval(-20 * 86_400)),
        ]))
        let side = ScreenFixture.sideLines(state)
        #expect(side[1].contains("오늘"))
        #expect(side[2].contains("# public"))
        #expect(side[3].contains("어제"))
        #expect(side[4].contains("○ bob") && side[4].hasSuffix(" !2"))
        #expect(side[5].contains("2026년"))
        #expect(side[6].contains("○ 캐럴"))
    }

    @Test func englishMonthsWithinTheYear() {
        let fixture = ScreenFixture()
        var state = fixture.state()
        state.feed(.rooms([
            RoomEntry(room: .publicRoom, title: "public", lastActivity: ScreenFixture.noon.addingTimeInterval(-40 * 86_400)),
        ]))
        #expect(ScreenFixture.lines(state)[1].contains("October"))
    }

    @Test func badgesCountAndArrivalsAddToThem() {
        let fixture = ScreenFixture()
        var state = fixture.state()
        let bobRoom = RoomID.direct(ScreenFixture.bob)
        state.feed(
            .peers([ScreenFixture.bob: nil]),
            .rooms([
                RoomEntry(room: .publicRoom, title: "public", unread: 0, lastActivity: ScreenFixture.noon),
                RoomEntry(room: bobRoom, title: "bob", unread: 3, lastActivity: ScreenFixture.noon.addingTimeInterval(-60)),
                RoomEntry(room: .direct(ScreenFixture.carol), title: "carol", unread: 1500, lastActivity: ScreenFixture.noon.addingTimeInterval(-120)),
            ]),
            .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        var side = ScreenFixture.sideLines(state)
        #expect(side[2].contains("# public") && !side[2].hasSuffix(" 0"))
        #expect(side[3].contains("● bob") && side[3].hasSuffix(" !3"))  // online mark; "!": DMs want attention
        #expect(side[4].contains("○ carol") && side[4].hasSuffix(" !999+"))
        // A DM arriving in a room not open: badge 4, moved to the top of Today.
        state.feed(.message(ScreenFixture.message(70, room: bobRoom), name: "bob"))
        side = ScreenFixture.sideLines(state)
        #expect(side[2].contains("● bob") && side[2].hasSuffix(" !4"))
        // The store's count after a mark-read replaces the local one.
        state.feed(.unread(bobRoom, 0))
        side = ScreenFixture.sideLines(state)
        #expect(side[2].hasSuffix("bob"))
    }

    @Test func filterHidesOtherStagesAndTabMovesBetweenRooms() {
        let fixture = ScreenFixture()
        var state = fixture.state()
        state.feed(
            .peers([ScreenFixture.bob: "ios", ScreenFixture.carol: "web"]),
            .rooms([
                RoomEntry(room: .publicRoom, title: "public", lastActivity: ScreenFixture.noon),
                RoomEntry(room: .direct(ScreenFixture.bob), title: "bob", lastActivity: ScreenFixture.noon.addingTimeInterval(-60)),
                RoomEntry(room: .direct(ScreenFixture.carol), title: "carol", lastActivity: ScreenFixture.noon.addingTimeInterval(-120)),
            ]),
            .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        #expect(state.feed(.key(.tab)) == [.open(.direct(ScreenFixture.bob))])
        #expect(state.feed(.key(.control("n"))) == [.open(.direct(ScreenFixture.carol))])
        #expect(state.feed(.key(.control("p"))) == [.open(.direct(ScreenFixture.bob))])
        for key in "/filter ios" { state.feed(.key(.text(String(key)))) }
        state.feed(.key(.enter))
        let text = ScreenFixture.lines(state).joined(separator: "\n")
        #expect(text.contains("bob") && !text.contains("carol"))
        #expect(text.contains("filter ios"))
    }

    @Test func arrivalMovesAnOldRoomToTodayAndDropsItsEmptyGroup() {
        let fixture = ScreenFixture()
        var state = fixture.state()
        let carolRoom = RoomID.direct(ScreenFixture.carol)
        state.feed(.rooms([
            RoomEntry(room: .publicRoom, title: "public", lastActivity: ScreenFixture.noon),
            RoomEntry(room: carolRoom, title: "carol", lastActivity: ScreenFixture.noon.addingTimeInterval(-40 * 86_400)),
        ]))
        #expect(ScreenFixture.sideLines(state)[1...4] == [" Today", " # public", " October", " ○ carol"])
        state.feed(.message(ScreenFixture.message(70, room: carolRoom, from: ScreenFixture.carol), name: "carol"))
        #expect(ScreenFixture.sideLines(state)[1...4] == [" Today", " ○ carol         !1", " # public", ""])
        // The same rows a full regroup would give.
        let incremental = state.side.rows
        state.side.regroup(grouping: state.grouping, filter: state.filter, keep: nil)
        #expect(state.side.rows == incremental)
    }
}

/// Arrivals move a room to the top of Today by shifting only the rows
/// above it, and the unread totals are kept as entries change: both must
/// give what a full regroup and a full recount give.
@Suite struct SideListIncrementalTests {
    @Test func arrivalsGiveTheRowsAndTotalsOfAFullRegroup() {
        let fixture = ScreenFixture()
        var random = ScreenDiffPropertyTests.Seeded(state: 0x5EED_1234_ABCD_0001)
        var entries = [RoomEntry(room: .publicRoom, title: "public", unread: 4, lastActivity: ScreenFixture.noon.addingTimeInterval(-7_000))]
        for index in 0..<300 {
            // Today, yesterday, this year's months and last year's.
            let age = [Double.random(in: 3_700..<40_000, using: &random), Double.random(in: 45_000..<80_000, using: &random),
                       Double.random(in: 86_400..<400 * 86_400, using: &random)][index % 3]
            entries.append(RoomEntry(room: .direct(NodeNumber(rawValue: UInt64(0x100 + index))!), title: "peer\(index)",
                                     unread: Int.random(in: 0..<5, using: &random), lastActivity: ScreenFixture.noon.addingTimeInterval(-age)))
        }
        var side = SideList()
        side.replace(entries, grouping: fixture.grouping, filter: .all, keep: nil)
        for step in 0..<600 {
            let room: RoomID = step % 10 == 0 ? .publicRoom : .direct(NodeNumber(rawValue: UInt64(0x100 + Int.random(in: 0..<300, using: &random)))!)
            let at = ScreenFixture.noon.addingTimeInterval(-3_600 + Double(step))  // later every time
            side.touch(room, at: at, title: "x", unreadDelta: Int.random(in: 0...1, using: &random), grouping: fixture.grouping, filter: .all, keep: nil)
            if step % 7 == 0 { side.update(room) { $0.unread = 0 } }
            var regrouped = side
            regrouped.regroup(grouping: fixture.grouping, filter: .all, keep: nil)
            #expect(side.rows == regrouped.rows, "step \(step)")
            let values = side.entries.values
            #expect(side.publicUnread == values.filter { $0.room.peer == nil }.reduce(0) { $0 + $1.unread })
            #expect(side.directUnread == values.filter { $0.room.peer != nil }.reduce(0) { $0 + $1.unread })
        }
    }
}
