import ChatCore
import ChatScreen
import Testing

/// PgUp/PgDn and Alt/Ctrl keys for scrolling and conversations, and the mouse.
@Suite struct ConversationKeyTests {
    typealias Editing = InputEditingTests

    @Test func altNumbersAndAltArrowsSwitchConversations() {
        var state = Editing.opened()
        #expect(state.feed(.key(.alt(.text("3")))) == [.open(.direct(ScreenFixture.carol))])
        #expect(state.feed(.key(.alt(.left))) == [.open(.direct(ScreenFixture.bob))])
        #expect(state.feed(.key(.alt(.right))) == [.open(.direct(ScreenFixture.carol))])
        #expect(state.feed(.key(.alt(.text("9")))) == [])
        #expect(state.notice?.contains("no conversation 9") == true)
    }

    @Test func altAJumpsToUnreadDirectOnesFirst() {
        var state = Editing.opened()
        state.feed(.unread(.direct(ScreenFixture.carol), 2), .unread(.publicRoom, 5))
        #expect(state.feed(.key(.alt(.text("a")))) == [.open(.direct(ScreenFixture.carol))])
        state.feed(.unread(.direct(ScreenFixture.carol), 0))
        #expect(state.feed(.key(.alt(.text("a")))) == [.open(.publicRoom)])
        state.feed(.unread(.publicRoom, 0))
        #expect(state.feed(.key(.alt(.text("a")))) == [])
        #expect(state.notice?.contains("no other conversation") == true)
    }

    @Test func altAPutsAMentionInPublicOnAParWithDirectMessages() {
        var state = Editing.opened()
        state.feed(.opened(ScreenFixture.page(1...2, room: .direct(ScreenFixture.carol), before: false, after: false, marker: 2), title: "carol"))
        state.feed(.message(ScreenFixture.message(10, text: "alice, look at this"), name: "bob"))
        state.feed(.unread(.direct(ScreenFixture.bob), 1))
        #expect(state.highlights(in: .publicRoom) == 1)
        // After carol comes public (a mention), then bob (a DM): the list's order.
        #expect(state.feed(.key(.alt(.text("a")))) == [.open(.publicRoom)])
        // Plain unread in public waits behind a DM.
        var plain = Editing.opened()
        plain.feed(.opened(ScreenFixture.page(1...2, room: .direct(ScreenFixture.carol), before: false, after: false, marker: 2), title: "carol"))
        plain.feed(.message(ScreenFixture.message(10, text: "just chatting"), name: "bob"))
        plain.feed(.unread(.direct(ScreenFixture.bob), 1))
        #expect(plain.feed(.key(.alt(.text("a")))) == [.open(.direct(ScreenFixture.bob))])
    }

    @Test func homeAndEndEditWhilePageKeysScroll() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...60, before: false, after: false, marker: 60), title: "public"))
        func messages() -> [String] { Array(ScreenFixture.roomLines(state).prefix(state.messageRows + 1)) }
        let bottom = messages()
        Editing.press(&state, .text("abc"), .home)
        #expect(messages() == bottom)
        #expect(state.input.cursor == 0)
        Editing.press(&state, .pageUp)
        #expect(messages() != bottom)
        Editing.press(&state, .alt(.end))
        #expect(messages() == bottom)
        Editing.press(&state, .alt(.up))
        #expect(messages() != bottom)
        Editing.press(&state, .ctrl(.end))
        #expect(messages() == bottom)
        Editing.press(&state, .ctrl(.home))
        #expect(messages().contains { $0.hasSuffix("bob: message 1") })
        Editing.press(&state, .pageDown, .pageDown, .pageDown, .pageDown)
        #expect(messages() == bottom)
    }

    @Test func wheelScrollsTheRoomAndAClickOpensAConversation() {
        var state = Editing.opened()
        state.feed(.opened(ScreenFixture.page(1...60, before: false, after: false, marker: 60), title: "public"))
        let bottom = ScreenFixture.roomLines(state)
        state.feed(.key(.mouse(MouseEvent(.wheelUp, row: 5, column: 40))))
        #expect(ScreenFixture.roomLines(state) != bottom)
        state.feed(.key(.mouse(MouseEvent(.wheelDown, row: 5, column: 40))), .key(.mouse(MouseEvent(.wheelDown, row: 5, column: 40))))
        #expect(ScreenFixture.roomLines(state) == bottom)
        // The list: row 1 is Today's header, then public, bob, carol.
        let side = ScreenFixture.sideLines(state)
        let carolRow = side.firstIndex { $0.contains("carol") }!
        #expect(state.feed(.key(.mouse(MouseEvent(.press(0), row: carolRow, column: 5)))) == [.open(.direct(ScreenFixture.carol))])
        let header = side.firstIndex { $0.contains("Today") }!
        #expect(state.feed(.key(.mouse(MouseEvent(.press(0), row: header, column: 5)))) == [])
        #expect(state.feed(.key(.mouse(MouseEvent(.release(0), row: carolRow, column: 5)))) == [])
    }

    @Test func aClickOnTheInputPutsTheCursorThere() {
        var state = Editing.opened()
        Editing.press(&state, .text("한글 abc"))
        // "[#public] " is 10 columns; 한 10-11, 글 12-13, space 14, a 15.
        state.feed(.key(.mouse(MouseEvent(.press(0), row: 23, column: 13))))
        #expect(state.input.cursor == 1)
        state.feed(.key(.mouse(MouseEvent(.press(0), row: 23, column: 15))))
        #expect(state.input.cursor == 3)
        state.feed(.key(.mouse(MouseEvent(.press(0), row: 23, column: 70))))
        #expect(state.input.cursor == 6)
    }

    @Test func theWheelOverTheListScrollsTheList() {
        var state = ScreenFixture().state(width: 80, height: 12)
        state.feed(.rooms((0..<30).map { n in
            RoomEntry(room: .direct(NodeNumber(rawValue: UInt64(0x5000 + n))!), title: "peer\(n)", lastActivity: ScreenFixture.noon.addingTimeInterval(-Double(n) * 60))
        }))
        #expect(ScreenFixture.sideLines(state)[2].contains("peer0"))
        state.feed(.key(.mouse(MouseEvent(.wheelDown, row: 3, column: 2))))
        #expect(state.side.top == 3)
        #expect(ScreenFixture.sideLines(state)[1].contains("peer2"))
        for _ in 0..<20 { state.feed(.key(.mouse(MouseEvent(.wheelDown, row: 3, column: 2)))) }
        #expect(state.side.top == state.side.rows.count - state.sideRows)  // not past the end
        for _ in 0..<20 { state.feed(.key(.mouse(MouseEvent(.wheelUp, row: 3, column: 2)))) }
        #expect(state.side.top == 0)
    }
}
