import ChatCore
import ChatScreen
import Testing

@Suite struct InputHistoryAndCompletionTests {
    typealias Editing = InputEditingTests

    @Test func upAndDownWalkThisRoomsLinesAndKeepTheDraft() {
        var state = Editing.opened()
        for line in ["first", "second", "/peers"] { Editing.press(&state, .text(line), .enter) }
        Editing.press(&state, .text("draft"), .up)
        #expect(state.input.text == "/peers")
        #expect(Editing.inputRow(state).text == "/peers")
        Editing.press(&state, .up, .up)
        #expect(state.input.text == "first")
        Editing.press(&state, .up)  // the oldest stays
        #expect(state.input.text == "first")
        Editing.press(&state, .down)
        #expect(state.input.text == "second" && state.input.cursor == 6)
        Editing.press(&state, .down, .down)
        #expect(state.input.text == "draft")
        Editing.press(&state, .down)
        #expect(state.input.text == "draft")
    }

    @Test func eachRoomHasItsOwnHistory() {
        var state = Editing.opened()
        Editing.press(&state, .text("in public"), .enter)
        state.feed(.opened(ScreenFixture.page(1...2, room: .direct(ScreenFixture.bob), before: false, after: false, marker: 2), title: "bob"))
        Editing.press(&state, .up)
        #expect(state.input.text.isEmpty)
        Editing.press(&state, .text("to bob"), .enter)
        Editing.press(&state, .up)
        #expect(state.input.text == "to bob")
        Editing.press(&state, .control("u"))
        state.feed(.opened(ScreenFixture.page(1...2, before: false, after: false, marker: 2), title: "public"))
        Editing.press(&state, .up)
        #expect(state.input.text == "in public")
    }

    @Test func historyIsCappedPerRoom() {
        var history = InputHistory()
        for n in 0..<(InputHistory.capacity + 20) { history.record("line \(n)", room: .publicRoom) }
        #expect(history.lines[.publicRoom]?.count == InputHistory.capacity)
        #expect(history.lines[.publicRoom]?.first == "line 20")
    }

    @Test func tabCompletesANicknameAndCycles() {
        var state = Editing.opened()
        state.feed(.message(ScreenFixture.message(4, from: ScreenFixture.carol), name: "carol"))
        state.feed(.message(ScreenFixture.message(5), name: "bob"))
        Editing.press(&state, .text("b"), .tab)
        #expect(state.input.text == "bob: ")
        #expect(Editing.inputRow(state).text == "bob:")
        Editing.press(&state, .text("hi c"), .tab)
        #expect(state.input.text == "bob: hi carol ")
        // Several matches: Tab again takes the next, the status line lists them.
        var other = Editing.opened()
        other.feed(.rooms([
            RoomEntry(room: .direct(ScreenFixture.bob), title: "bob", lastActivity: ScreenFixture.noon),
            RoomEntry(room: .direct(ScreenFixture.carol), title: "bobby", lastActivity: ScreenFixture.noon.addingTimeInterval(-60)),
        ]))
        Editing.press(&other, .text("hey BO"), .tab)
        #expect(other.input.text == "hey bob ")
        #expect(other.notice == "Tab: bob bobby")
        Editing.press(&other, .tab)
        #expect(other.input.text == "hey bobby ")
        Editing.press(&other, .tab)
        #expect(other.input.text == "hey bob ")
        Editing.press(&other, .backTab)
        #expect(other.input.text == "hey bobby ")
        // Any other key keeps the choice; the next Tab starts over.
        Editing.press(&other, .text("x"), .tab)
        #expect(other.input.text == "hey bobby x")
    }

    @Test func tabCompletesCommandsAndTheirArguments() {
        var state = Editing.opened()
        state.feed(.peers([ScreenFixture.bob: "backend"]))
        Editing.press(&state, .text("/he"), .tab)
        #expect(state.input.text == "/help ")
        Editing.press(&state, .control("u"), .text("/filter b"), .tab)
        #expect(state.input.text == "/filter backend ")
        Editing.press(&state, .control("u"), .text("/dm ca"), .tab)
        #expect(state.input.text == "/dm carol ")
        Editing.press(&state, .control("u"), .text("/open p"), .tab)
        #expect(state.input.text == "/open public ")
        // In the middle of a line: only the word before the cursor changes.
        Editing.press(&state, .control("u"), .text("/dm b hello"), .alt(.text("b")), .left, .tab)
        #expect(state.input.text == "/dm bob  hello")
    }

    @Test func tabOnAnEmptyLineStillChangesRoom() {
        var state = Editing.opened()
        #expect(state.feed(.key(.tab)) == [.open(.direct(ScreenFixture.bob))])
        #expect(state.feed(.key(.backTab)) == [.open(.publicRoom)])
    }

    @Test func aMultiLinePasteStaysInTheInputUntilEnter() {
        var state = Editing.opened()
        let effects = state.feed(.key(.paste("line one\nline two\n\u{1B}[31mred\n")))
        #expect(effects.isEmpty)  // nothing sent
        #expect(state.input.text == "line one\nline two\nred")
        #expect(Editing.inputRow(state).text == "line one↵line two↵red")
        #expect(state.notice?.contains("3 lines") == true)
        #expect(state.feed(.key(.enter)) == [.send("line one\nline two\nred", to: .publicRoom)])
    }

    @Test func aPasteLongerThanTheLimitKeepsWhatFits() {
        var state = Editing.opened()
        state.feed(.key(.paste(String(repeating: "가", count: 300))))
        #expect(state.input.count == 240)
        #expect(state.notice?.contains("240") == true)
    }

    @Test func altEnterBreaksTheLine() {
        var state = Editing.opened()
        Editing.press(&state, .text("a"), .alt(.enter), .text("b"))
        #expect(state.input.text == "a\nb")
        #expect(Editing.inputRow(state).text == "a↵b")
    }

    @Test func keyLegendOnF1AndOnQuestionMarkWhenEmpty() {
        var state = Editing.opened()
        Editing.press(&state, .function(1))
        #expect(ScreenFixture.roomLines(state).contains { $0.contains("Alt-A") && $0.contains("unread") })
        Editing.press(&state, .escape)
        #expect(state.panel == nil)
        Editing.press(&state, .text("?"))
        #expect(state.panel == KeyLegend.lines && state.input.text.isEmpty)
        Editing.press(&state, .escape, .text("why?"))
        #expect(state.input.text == "why?" && state.panel == nil)
        // The key that opened the legend closes it: "??" types one "?".
        Editing.press(&state, .control("u"), .text("?"), .text("?"))
        #expect(state.panel == nil && state.input.text == "?")
        Editing.press(&state, .control("u"), .text("?"))
        #expect(state.panel == KeyLegend.lines)
        Editing.press(&state, .function(1))
        #expect(state.panel == nil)
    }
}

@Suite struct KeyLegendFitTests {
    /// The legend is read at the smallest usual terminal without wrapping
    /// or losing a line: 80x24.
    @Test func theLegendFitsAnEightyByTwentyFourScreen() {
        var state = InputEditingTests.opened()
        state.feed(.key(.function(1)))
        let rows = ScreenFixture.roomLines(state)
        for line in KeyLegend.lines {
            #expect(rows.contains { $0.hasSuffix(" " + line) || $0 == " " + line }, "\(line)")
        }
    }
}
