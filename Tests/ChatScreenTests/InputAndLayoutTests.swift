import ChatCore
import ChatScreen
import Testing

@Suite struct InputAndLayoutTests {
    @Test func the241stGraphemeIsRefused() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...2, before: false, after: false, marker: 2), title: "public"))
        state.feed(.key(.text(String(repeating: "가", count: 239))), .key(.text("👨‍👩‍👧")))
        #expect(state.input.count == 240)
        #expect(ScreenFixture.lines(state)[23].hasSuffix("240/240"))
        state.feed(.key(.text("a")))
        #expect(state.input.count == 240)
        #expect(state.input.text.last == "👨‍👩‍👧")
        #expect(state.notice?.contains("240") == true)
        // A combining mark joins the last grapheme: still 240, accepted.
        state.feed(.key(.backspace), .key(.text("e")), .key(.text("\u{301}")))
        #expect(state.input.count == 240 && state.input.text.hasSuffix("e\u{301}"))
        let effects = state.feed(.key(.enter))
        #expect(effects.count == 1 && state.input.count == 0)
    }

    @Test func inputLineNamesTheRoomAndSurvivesArrivals() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...2, before: false, after: false, marker: 2), title: "public"))
        state.feed(.key(.text("half a thou")))
        state.feed(.message(ScreenFixture.message(3), name: "bob"))
        #expect(ScreenFixture.lines(state)[23] == "[#public] half a thou" + String(repeating: " ", count: 80 - 21 - 7) + " 11/240")
        #expect(state.feed(.key(.text("ght")), .key(.enter)) == [.send("half a thought", to: .publicRoom)])
        #expect(state.feed(.key(.text("/peers")), .key(.enter)) == [.command("/peers")])
        #expect(state.feed(.key(.control("c"))) == [.quit])
    }

    @Test func statusLineShowsPeersAndOptionalFields() {
        var state = ScreenFixture().state()
        state.feed(.peers([ScreenFixture.bob: nil, ScreenFixture.carol: nil]))
        #expect(ScreenFixture.lines(state)[22].contains("alice#1111 │ 2 linked │ filter all"))
        state.feed(.identity(name: "alice", fingerprint: "ab12 cd34", groupSecret: true))
        #expect(ScreenFixture.lines(state)[22].contains("2 linked │ key ab12 cd34 │ secret on"))
    }

    @Test func resizeKeepsTheLayout() {
        var state = ScreenFixture().state()
        state.feed(
            .rooms([RoomEntry(room: .publicRoom, title: "public", lastActivity: ScreenFixture.noon)]),
            .opened(ScreenFixture.page(1...30, before: false, after: false, marker: 10), title: "public"))
        for (width, height) in [(120, 40), (70, 15), (80, 24)] {
            state.feed(.resize(width: width, height: height))
            let lines = ScreenFixture.lines(state)
            #expect(lines.count == height)
            #expect(lines[0].hasPrefix(" Chats · all"))
            #expect(lines[0].contains("#public"))
            #expect(lines[height - 2].contains("alice#1111"))
            #expect(lines[height - 1].hasPrefix("[#public]"))
            #expect(ScreenFixture.roomLines(state).contains { $0.contains("── unread ──") })
            #expect(lines.allSatisfy { DisplayWidth.of($0) <= width })
        }
        // Narrow: no side list, the room takes the width.
        state.feed(.resize(width: 40, height: 12))
        #expect(ScreenFixture.lines(state)[0].hasPrefix(" #public"))
    }

    @Test func wideTextWrapsWithinTheRoom() {
        var state = ScreenFixture().state(width: 60, height: 12)
        let long = String(repeating: "한국어 ", count: 20)
        state.feed(.opened(HistoryPage(room: .publicRoom, messages: [ScreenFixture.message(1, text: long)], hasMoreBefore: false, hasMoreAfter: false, readMarker: ScreenFixture.message(1).cursor), title: "public"))
        let rows = ScreenFixture.roomLines(state)
        let body = rows.filter { $0.contains("한국어") }
        #expect(body.count >= 3)
        #expect(ScreenFixture.lines(state).allSatisfy { DisplayWidth.of($0) <= 60 })
    }
}
