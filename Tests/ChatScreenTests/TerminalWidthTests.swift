import ChatCore
import ChatScreen
import Testing

/// The grid, the diff and a terminal that disagrees with `DisplayWidth`
/// (tmux 3.3: 👋🏽 in 4 columns, ❤️ in 1) must end up showing the same
/// thing: no stray cell survives an edit, nothing leaves its row.
@Suite struct TerminalWidthTests {
    /// Drives a state frame by frame through the diff into a terminal.
    struct Screen {
        var state: ScreenState
        var terminal: VirtualTerminal
        var shown: ScreenGrid?
        /// Every byte written, for checks on the stream itself.
        var written: [String] = []

        init(width: Int = 80, height: Int = 24, glyphs: @escaping (Character) -> [(String, Int)] = VirtualTerminal.tmux33) {
            state = ScreenFixture().state(width: width, height: height)
            state.feed(
                .rooms([RoomEntry(room: .publicRoom, title: "public", lastActivity: ScreenFixture.noon)]),
                .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
            terminal = VirtualTerminal(width: width, height: height, glyphs: glyphs)
            draw()
        }

        mutating func press(_ keys: ScreenKey...) {
            for key in keys {
                state.feed(.key(key))
                draw()
            }
        }

        mutating func draw(full: Bool = false) {
            let frame = ScreenRenderer.render(state)
            let output = ScreenDiff.output(from: full ? nil : shown, to: frame.grid, cursorRow: frame.cursorRow, cursorColumn: frame.cursorColumn)
            terminal.run(output)
            written.append(output)
            shown = frame.grid
        }

        var gridLines: [String] { shown!.lines }
    }

    static let wave = "👋🏽"

    @Test func skinTonesTypedThenDeletedLeaveAnEmptyInputRow() {
        var screen = Screen()
        for _ in 0..<10 { screen.press(.text(Self.wave)) }
        #expect(screen.state.input.count == 10)
        for _ in 0..<10 { screen.press(.backspace) }
        let empty = "[#public]" + String(repeating: " ", count: 80 - 9 - 6) + " 0/240"
        #expect(screen.gridLines[23] == empty)
        #expect(screen.terminal.text(23) == empty)  // no stray hands on the terminal either
        #expect(screen.terminal.lines == screen.gridLines)
    }

    @Test func everyUncertainClusterKindIsErasedCleanly() {
        for cluster in ["👋🏽", "❤️", "👨‍👩‍👧", "🇰🇷", "e\u{301}", "\u{1100}\u{1161}\u{11A8}", "🟠"] {
            var screen = Screen()
            for _ in 0..<7 { screen.press(.text(cluster)) }
            screen.press(.left, .left, .text("x"), .home, .delete)
            #expect(screen.terminal.text(23).hasSuffix("7/240"), "\(cluster)")
            for _ in 0..<7 { screen.press(.end, .backspace) }
            #expect(screen.terminal.lines == screen.gridLines, "\(cluster)")
            #expect(screen.gridLines[23].hasPrefix("[#public]      "), "\(cluster)")
        }
    }

    @Test func twoHundredFortyWideClustersNeverTouchTheStatusRow() {
        var screen = Screen()
        let status = screen.gridLines[22]
        for _ in 0..<240 { screen.press(.text(Self.wave)) }
        #expect(screen.state.input.count == 240)
        #expect(screen.gridLines[22] == status)
        #expect(screen.terminal.text(22) == status)
        #expect(screen.terminal.lines[0..<23] == screen.gridLines[0..<23])
        // The input row holds the window around the cursor, within the width.
        #expect(DisplayWidth.of(screen.gridLines[23]) <= 80)
        #expect(screen.gridLines[23].hasSuffix("240/240"))
        // After the first frame no byte addresses rows other than the input.
        for output in screen.written.dropFirst() {
            #expect(!output.contains("\u{1B}[23;"))
        }
        for _ in 0..<240 { screen.press(.backspace) }
        #expect(screen.terminal.lines == screen.gridLines)
        #expect(screen.terminal.text(23).hasSuffix(" 0/240"))
    }

    @Test func aFullRedrawRepairsAnyScreen() {
        var screen = Screen()
        screen.terminal.run("\u{1B}[24;1Hgarbage 👋🏽👋🏽 \u{1B}[23;5Hlog line written over the status")
        #expect(screen.terminal.lines != screen.gridLines)
        screen.state.feed(.key(.control("l")))
        screen.draw(full: true)  // what the session does on Ctrl-L
        #expect(screen.terminal.lines == screen.gridLines)
    }

    @Test func roomRowsWithEmojiStayInStepOnATerminalThatDisagrees() {
        var screen = Screen()
        for n in 4...12 {
            screen.state.feed(.message(ScreenFixture.message(n, text: "wave \(Self.wave)\(Self.wave) ❤️ and 🇰🇷 \(n)"), name: "bob"))
            screen.draw()
        }
        screen.press(.pageUp)
        screen.press(.pageDown)
        // Every ASCII character sits in the column the grid gave it: a wide
        // guess gone wrong never shifts what follows it.
        let grid = screen.shown!
        var checked = 0
        for row in 0..<grid.height {
            for column in 0..<grid.width {
                let cell = grid[row, column]
                guard !cell.isContinuation, cell.character.isASCII, cell.character != " " else { continue }
                #expect(screen.terminal.cells[row][column] == String(cell.character), "row \(row) column \(column)")
                checked += 1
            }
        }
        #expect(checked > 200)
        #expect(screen.gridLines.contains { $0.contains("wave 👋🏽👋🏽 ❤️ and 🇰🇷 12") })
    }

    @Test func certainRowsAreStillDiffedCellByCell() {
        var screen = Screen()
        screen.press(.text("안녕"))
        screen.press(.text("x"))
        // One cell and the counter: no erase of the whole row.
        #expect(!screen.written.last!.contains("\u{1B}[K"))
        screen.press(.text(Self.wave))
        #expect(screen.written.last!.contains("\u{1B}[24;16H\u{1B}[0m\u{1B}[K👋🏽"))
    }
}

@Suite struct ClusterWidthTests {
    @Test func clustersTakeTheWidthOfTheirBaseOrOfTheirEmoji() {
        #expect(DisplayWidth.of("1\u{FE0F}\u{20E3}") == 2)  // keycap: an emoji, though its base is ASCII
        #expect(DisplayWidth.of("#\u{FE0F}\u{20E3}") == 2)
        #expect(DisplayWidth.of("a\u{301}\u{302}") == 1)  // two marks on a letter
        #expect(DisplayWidth.of("👋🏽👋🏽") == 4)
        #expect(DisplayWidth.of("🏳️‍🌈") == 2)  // flag built with VS16 and ZWJ
        #expect(DisplayWidth.of("👩🏽‍💻") == 2)  // skin tone inside a ZWJ sequence
        #expect(DisplayWidth.of("각") == 2 && DisplayWidth.of("\u{1100}\u{1161}\u{11A8}") == 2)  // precomposed and conjoining
    }

    @Test func theCellsTerminalsDisagreeOnAreKnown() {
        func cell(_ text: String) -> Cell { Cell(Character(text)) }
        for uncertain in ["👋🏽", "❤️", "👨‍👩‍👧", "🇰🇷", "e\u{301}", "😀", "⌚", "1️⃣"] { #expect(cell(uncertain).hasUncertainWidth, "\(uncertain)") }
        for certain in ["a", "한", "漢", "─", "│", "●", "→", "↵", "é"] { #expect(!cell(certain).hasUncertainWidth, "\(certain)") }
    }

    @Test func typedKeycapsAndFamiliesAreDeletedWhole() {
        var state = InputEditingTests.opened()
        state.feed(.key(.text("1️⃣👨‍👩‍👧🇰🇷")))
        #expect(state.input.count == 3)
        state.feed(.key(.backspace))
        #expect(state.input.text == "1️⃣👨‍👩‍👧")
        state.feed(.key(.left), .key(.backspace))
        #expect(state.input.text == "👨‍👩‍👧")
    }
}

@Suite struct GridOverwriteTests {
    /// A wide character cut at the limit becomes a space, and the wide
    /// character it lands on loses its other half too (no orphan
    /// continuation cell, which the diff would never write).
    @Test func aCutWideCharacterLeavesNoOrphanHalf() {
        var grid = ScreenGrid(width: 6, height: 1)
        grid.put("ab한글", row: 0, column: 0)
        grid.put("x한", row: 0, column: 1, limit: 2)
        #expect(grid.text(row: 0) == "ax  글")
        for column in 0..<6 where grid[0, column].isContinuation {
            #expect(column > 0 && DisplayWidth.of(grid[0, column - 1].character) == 2, "orphan at \(column)")
        }
    }
}

@Suite struct UncertainRowEdgeTests {
    /// The erase before a rewritten tail starts where a character starts
    /// in both frames: erasing from the right half of a new wide character
    /// would take that character away on a real terminal.
    @Test func theRewriteNeverStartsInsideAWideCharacter() {
        for glyphs in [VirtualTerminal.tmux33, VirtualTerminal.agreeing] {
            var old = ScreenGrid(width: 10, height: 1)
            old.put("abcde👋🏽z", row: 0, column: 0)
            var new = ScreenGrid(width: 10, height: 1)
            new.put("abcd한", row: 0, column: 0)
            var terminal = VirtualTerminal(width: 10, height: 1, glyphs: glyphs)
            terminal.run(ScreenDiff.output(from: nil, to: old, cursorRow: 0, cursorColumn: 0))
            terminal.run(ScreenDiff.output(from: old, to: new, cursorRow: 0, cursorColumn: 0))
            #expect(terminal.text(0) == "abcd한")
            // And back.
            terminal.run(ScreenDiff.output(from: new, to: old, cursorRow: 0, cursorColumn: 0))
            #expect(terminal.text(0).hasPrefix("abcde"))
            #expect(terminal.cells[0][5].unicodeScalars.first == "👋")
            #expect(terminal.cells[0][7] == "z")
        }
    }
}
