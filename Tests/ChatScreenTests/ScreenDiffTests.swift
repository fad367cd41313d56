import ChatScreen
import Testing

@Suite struct ScreenDiffTests {
    @Test func unchangedFrameWritesOnlyTheCursor() {
        var grid = ScreenGrid(width: 10, height: 3)
        grid.put("hello", row: 1, column: 2)
        #expect(ScreenDiff.output(from: grid, to: grid, cursorRow: 2, cursorColumn: 0) == "\u{1B}[3;1H")
    }

    @Test func oneChangedCellIsOneMoveAndOneCharacter() {
        var before = ScreenGrid(width: 10, height: 3)
        before.put("hello", row: 1, column: 2)
        var after = before
        after.put("J", row: 1, column: 2)
        let out = ScreenDiff.output(from: before, to: after, cursorRow: 0, cursorColumn: 0)
        #expect(out == "\u{1B}[2;3H\u{1B}[0mJ\u{1B}[0m\u{1B}[1;1H")
    }

    @Test func firstFrameClearsAndDrawsWideCharactersOnce() {
        var grid = ScreenGrid(width: 4, height: 1)
        grid.put("한a", row: 0, column: 0, style: CellStyle(foreground: .red, bold: true))
        let out = ScreenDiff.output(from: nil, to: grid, cursorRow: 0, cursorColumn: 3)
        #expect(out.hasPrefix("\u{1B}[0m\u{1B}[2J"))
        #expect(out.contains("\u{1B}[0;1;31m한a"))
        #expect(out.filter { $0 == "한" }.count == 1)
    }
}

@Suite struct ReusedGridTests {
    /// Drawing into last frame's grid gives exactly what a fresh grid gives.
    @Test func reusedGridMatchesAFreshOne() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...30, before: false, after: false, marker: 10), title: "public"))
        var reused = ScreenRenderer.render(state).grid
        state.feed(.key(.text("한글 typed")), .message(ScreenFixture.message(31, text: "😀 new"), name: "bob"), .key(.pageUp))
        let cursor = ScreenRenderer.render(state, into: &reused)
        let fresh = ScreenRenderer.render(state)
        #expect(reused == fresh.grid)
        #expect(cursor.row == fresh.cursorRow && cursor.column == fresh.cursorColumn)
        #expect(ScreenDiff.output(from: fresh.grid, to: reused, cursorRow: 0, cursorColumn: 0) == "\u{1B}[1;1H")
    }
}
