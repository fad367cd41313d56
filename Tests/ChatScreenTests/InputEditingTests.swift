import ChatCore
import ChatScreen
import Testing

/// The input line edits as readline does; each test reads the result off
/// the grid's input row as well as the state.
@Suite struct InputEditingTests {
    static func opened(width: Int = 80, height: Int = 24) -> ScreenState {
        var state = ScreenFixture().state(width: width, height: height)
        state.feed(
            .rooms([
                RoomEntry(room: .publicRoom, title: "public", lastActivity: ScreenFixture.noon),
                RoomEntry(room: .direct(ScreenFixture.bob), title: "bob", lastActivity: ScreenFixture.noon.addingTimeInterval(-60)),
                RoomEntry(room: .direct(ScreenFixture.carol), title: "carol", lastActivity: ScreenFixture.noon.addingTimeInterval(-120)),
            ]),
            .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        return state
    }

    /// The typed text as the input row shows it, and the cursor's column in it.
    static func inputRow(_ state: ScreenState) -> (text: String, cursor: Int) {
        let frame = ScreenRenderer.render(state)
        var line = frame.grid.lines[state.height - 1]
        line = String(line.dropFirst("[#public] ".count))
        if let counter = line.range(of: " \(state.input.count)/240") { line = String(line[..<counter.lowerBound]) }
        while line.last == " " { line.removeLast() }
        return (line, frame.cursorColumn - "[#public] ".count)
    }

    static func press(_ state: inout ScreenState, _ keys: ScreenKey...) {
        for key in keys { state.feed(.key(key)) }
    }

    @Test func leftThenTypeInsertsAtTheCursor() {
        var state = Self.opened()
        Self.press(&state, .text("helo"), .left, .text("l"))
        #expect(state.input.text == "hello")
        #expect(Self.inputRow(state).text == "hello")
        #expect(Self.inputRow(state).cursor == 4)
        #expect(state.feed(.key(.enter)) == [.send("hello", to: .publicRoom)])
    }

    @Test func homeEndAndControlAE() {
        var state = Self.opened()
        Self.press(&state, .text("world"), .home, .text("hello "), .end, .text("!"))
        #expect(state.input.text == "hello world!")
        Self.press(&state, .control("a"), .text(">"), .control("e"), .text("<"))
        #expect(Self.inputRow(state).text == ">hello world!<")
        Self.press(&state, .control("b"), .control("b"), .control("f"), .text("?"))
        #expect(state.input.text == ">hello world!?<")
    }

    @Test func wordMoves() {
        var state = Self.opened()
        Self.press(&state, .text("one two-three  four"))
        Self.press(&state, .alt(.text("b")))
        #expect(state.input.cursor == 15)  // before "four"
        Self.press(&state, .ctrl(.left), .ctrl(.left))
        #expect(state.input.cursor == 4)  // before "two"
        Self.press(&state, .alt(.text("f")))
        #expect(state.input.cursor == 7)  // after "two"
        Self.press(&state, .ctrl(.right), .text("!"))
        #expect(state.input.text == "one two-three!  four")
    }

    @Test func deleteAndBackspaceAroundWideText() {
        var state = Self.opened()
        Self.press(&state, .text("가👋🏽나"), .left, .left, .delete)
        #expect(state.input.text == "가나")
        Self.press(&state, .backspace)
        #expect(state.input.text == "나" && state.input.cursor == 0)
        Self.press(&state, .delete, .delete)
        #expect(state.input.text.isEmpty)
        #expect(Self.inputRow(state).text == "")
    }

    @Test func killsAndYank() {
        var state = Self.opened()
        Self.press(&state, .text("alpha beta gamma"), .left, .left, .left, .left, .left)
        Self.press(&state, .control("k"))
        #expect(state.input.text == "alpha beta ")
        Self.press(&state, .control("a"), .control("y"))
        #expect(state.input.text == "gammaalpha beta ")
        Self.press(&state, .control("e"), .control("w"))
        #expect(state.input.text == "gammaalpha ")
        // Ctrl-U right after Ctrl-W: the two cuts are one piece.
        Self.press(&state, .control("u"))
        #expect(state.input.text.isEmpty)
        Self.press(&state, .control("y"))
        #expect(state.input.text == "gammaalpha beta ")
    }

    @Test func killsInARowGatherIntoOnePiece() {
        var state = Self.opened()
        Self.press(&state, .text("one two three"), .control("w"), .control("w"), .control("w"))
        #expect(state.input.text.isEmpty)
        Self.press(&state, .control("y"))
        #expect(state.input.text == "one two three")
        // A move between kills starts a new piece.
        Self.press(&state, .control("w"), .left, .control("w"))
        #expect(state.memory.kill.text == "two")
    }

    @Test func altDAndAltBackspaceCutWords() {
        var state = Self.opened()
        Self.press(&state, .text("foo.bar baz"), .home, .alt(.text("d")))
        #expect(state.input.text == ".bar baz")
        Self.press(&state, .end, .alt(.backspace))
        #expect(state.input.text == ".bar ")
        #expect(state.memory.kill.text == "baz")
    }

    @Test func controlTSwapsAndAltRCutsTheLine() {
        var state = Self.opened()
        Self.press(&state, .text("teh"), .left, .control("t"))
        #expect(state.input.text == "the" && state.input.cursor == 3)
        Self.press(&state, .control("t"))  // at the end: the last two
        #expect(state.input.text == "teh")
        Self.press(&state, .text(" 한👋🏽"), .control("t"))
        #expect(state.input.text == "teh 👋🏽한")
        Self.press(&state, .home, .alt(.text("r")))
        #expect(state.input.text.isEmpty)
        Self.press(&state, .control("y"))
        #expect(state.input.text == "teh 👋🏽한")
    }

    @Test func controlDDeletesUnlessTheLineIsEmpty() {
        var state = Self.opened()
        Self.press(&state, .text("ab"), .home)
        #expect(state.feed(.key(.control("d"))) == [])
        #expect(state.input.text == "b")
        Self.press(&state, .backspace, .delete)
        #expect(state.feed(.key(.control("d"))) == [.quit])
    }

    @Test func aLongLineScrollsAroundTheCursorAndStaysInItsRow() {
        var state = Self.opened(width: 40, height: 10)
        let text = (0..<60).map { String($0 % 10) }.joined()
        Self.press(&state, .text(text))
        var frame = ScreenRenderer.render(state)
        let row = frame.grid.lines[9]
        #expect(DisplayWidth.of(row) <= 40)
        #expect(row.contains("56789"))  // the tail is shown while typing at the end
        #expect(frame.cursorColumn < 40 - " 60/240".count)
        Self.press(&state, .home)
        frame = ScreenRenderer.render(state)
        #expect(frame.grid.lines[9].hasPrefix("[#public] 0123456789"))
        #expect(frame.cursorColumn == 10)
        // Every cursor position is on screen, over the character it edits.
        for offset in (0...60).reversed() {
            state.input.move(to: offset)
            frame = ScreenRenderer.render(state)
            #expect(frame.cursorColumn >= 10 && frame.cursorColumn < 40 - 7)
            if offset < 60 {
                let digit = Character(String(offset % 10))
                #expect(frame.grid[9, frame.cursorColumn].character == digit, "offset \(offset)")
            }
        }
    }

    @Test func wideTextWindowNeverSplitsAClusterOrOverflows() {
        var state = Self.opened(width: 30, height: 8)
        for _ in 0..<100 { Self.press(&state, .text("한")) }
        for _ in 0..<37 { Self.press(&state, .left) }
        let frame = ScreenRenderer.render(state)
        #expect(DisplayWidth.of(frame.grid.lines[7]) <= 30)
        #expect(frame.grid[7, frame.cursorColumn].character == "한")
        #expect(!frame.grid[7, frame.cursorColumn].isContinuation)
    }
}
