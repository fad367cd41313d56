import ChatScreen
import Testing

/// Random frames of mixed text (ASCII, Hangul, emoji with skin tones, VS16
/// hearts, flags, accents) diffed one after another into a virtual
/// terminal: a terminal that agrees with `DisplayWidth` ends up showing
/// exactly the grid; one that does not (tmux 3.3) still shows every
/// certain character in its column and nothing where the grid is blank,
/// except right after a cluster it draws wider.
@Suite struct ScreenDiffPropertyTests {
    /// xorshift64*: a seed replays a failing run exactly.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }
    }

    static let pieces = ["a", "b", " ", "xyz", "한", "글", "👋🏽", "❤️", "🇰🇷", "e\u{301}", "😀", "│", "👨‍👩‍👧"]

    static func frame(_ random: inout Seeded, width: Int, height: Int) -> ScreenGrid {
        var grid = ScreenGrid(width: width, height: height)
        for row in 0..<height where Int.random(in: 0..<4, using: &random) > 0 {
            var text = ""
            for _ in 0..<Int.random(in: 0..<12, using: &random) { text += pieces.randomElement(using: &random)! }
            let style = Bool.random(using: &random) ? CellStyle.plain : CellStyle(foreground: .red, bold: true)
            grid.put(text, row: row, column: Int.random(in: 0..<width, using: &random), style: style)
            if Bool.random(using: &random) { grid.put("│", row: row, column: Int.random(in: 0..<width, using: &random)) }
        }
        return grid
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func agreeingTerminalShowsTheGridExactly(seed: UInt64) {
        var random = Seeded(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var terminal = VirtualTerminal(width: 24, height: 6, glyphs: VirtualTerminal.agreeing)
        var shown: ScreenGrid?
        for step in 0..<200 {
            let next = Self.frame(&random, width: 24, height: 6)
            terminal.run(ScreenDiff.output(from: shown, to: next, cursorRow: 0, cursorColumn: 0))
            #expect(terminal.lines == next.lines, "seed \(seed) step \(step)")
            shown = next
        }
    }

    /// As the session draws: into the grid of two frames ago, cleared, then
    /// swapped; each grid numbers its clusters on its own.
    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func reusedGridsShowTheGridExactly(seed: UInt64) {
        var random = Seeded(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var terminal = VirtualTerminal(width: 24, height: 6, glyphs: VirtualTerminal.agreeing)
        var shown = ScreenGrid(width: 24, height: 6)
        var back = ScreenGrid(width: 24, height: 6)
        terminal.run(ScreenDiff.output(from: nil, to: shown, cursorRow: 0, cursorColumn: 0))
        for step in 0..<200 {
            let fresh = Self.frame(&random, width: 24, height: 6)
            back.clear()
            for row in 0..<6 {
                let style = Bool.random(using: &random) ? CellStyle.plain : CellStyle(foreground: .yellow, background: .blue, dim: true)
                back.put(fresh.text(row: row), row: row, column: 0, style: style)
            }
            terminal.run(ScreenDiff.output(from: shown, to: back, cursorRow: 0, cursorColumn: 0))
            #expect(terminal.lines == back.lines, "seed \(seed) step \(step)")
            swap(&shown, &back)
        }
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func disagreeingTerminalKeepsEveryCertainCellInItsColumn(seed: UInt64) {
        var random = Seeded(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var terminal = VirtualTerminal(width: 24, height: 6)
        var shown: ScreenGrid?
        for step in 0..<200 {
            let next = Self.frame(&random, width: 24, height: 6)
            terminal.run(ScreenDiff.output(from: shown, to: next, cursorRow: 0, cursorColumn: 0))
            for row in 0..<6 {
                var reach = 0  // columns a wider-drawn cluster may cover
                for column in 0..<24 {
                    let cell = next[row, column]
                    if cell.hasUncertainWidth { reach = 4 }
                    defer { reach = max(0, reach - 1) }
                    if cell.isContinuation || cell.hasUncertainWidth { continue }
                    let shownThere = terminal.cells[row][column]
                    if cell.character == " " {
                        if reach == 0 { #expect(shownThere == " ", "seed \(seed) step \(step) row \(row) column \(column)") }
                    } else {
                        #expect(shownThere == String(cell.character), "seed \(seed) step \(step) row \(row) column \(column)")
                    }
                }
            }
            shown = next
        }
    }
}
