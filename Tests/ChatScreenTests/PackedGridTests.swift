import ChatScreen
import Testing

/// The grid stores cells packed, with clusters of several scalars in a
/// table of its own: what goes in comes back, the table stays bounded, and
/// grids that number their clusters differently still compare and diff by
/// what they show.
@Suite struct PackedGridTests {
    static let clusters: [Character] = ["👋🏽", "❤️", "👨‍👩‍👧", "🇰🇷", "e\u{301}", "1️⃣", "각"]

    @Test func clustersOfSeveralScalarsRoundTrip() {
        var grid = ScreenGrid(width: 30, height: 2)
        let text = String(Self.clusters.map { String($0) }.joined(separator: " "))
        grid.put(text, row: 1, column: 0)
        var column = 0
        for cluster in Self.clusters {
            #expect(grid[1, column].character == cluster)
            #expect(grid[1, column].hasUncertainWidth == (cluster != "각"))
            column += DisplayWidth.of(cluster)
            #expect(grid[1, column].character == " ")
            column += 1
        }
        #expect(grid.lines[1] == text)
        // Each distinct cluster is kept once, however often it is drawn.
        grid.put(text, row: 0, column: 0)
        #expect(grid.clusterCount == Self.clusters.count - 1)  // "각" is one scalar
    }

    @Test func everyStyleRoundTrips() {
        let colors: [CellColor] = [.standard, .black, .red, .green, .yellow, .blue, .magenta, .cyan, .white, .gray]
        var grid = ScreenGrid(width: 2, height: 1)
        for foreground in colors {
            for background in colors {
                for flags in 0..<8 {
                    let style = CellStyle(foreground: foreground, background: background, bold: flags & 1 != 0, reverse: flags & 2 != 0, dim: flags & 4 != 0)
                    grid.put("한", row: 0, column: 0, style: style)
                    #expect(grid[0, 0] == Cell("한", style: style))
                    #expect(grid[0, 1] == Cell(" ", style: style, isContinuation: true))
                }
            }
        }
    }

    @Test func theTableStartsOverEachFrame() {
        var grid = ScreenGrid(width: 10, height: 1)
        for frame in 0..<500 {
            grid.clear()
            // A new cluster each frame: an accent on a different letter.
            let letter = Character(Unicode.Scalar(UInt8(0x61 + frame % 26)))
            grid.put(String(letter) + "\u{301}" + "👋🏽", row: 0, column: 0)
            #expect(grid.clusterCount == 2)
            #expect(grid[0, 0].character == Character(String(letter) + "\u{301}"))
        }
    }

    @Test func aGridNeverClearedKeepsItsTableBounded() {
        var grid = ScreenGrid(width: 4, height: 1)
        var last: Character = " "
        for base in 0x61...0x7A {
            for mark in 0x300...0x36F {
                last = Character(String(Unicode.Scalar(UInt8(base))) + String(Unicode.Scalar(UInt32(mark))!))
                grid.put(String(last) + "🇰🇷", row: 0, column: base % 2)
                #expect(grid.clusterCount <= 2 * 4 + 16 + 1)
            }
        }
        // Compaction kept what the cells show (the last put was at column 0).
        #expect(grid[0, 0].character == last)
        #expect(grid[0, 1].character == "🇰🇷" && grid[0, 2].isContinuation)
        #expect(grid[0, 3].character == " ")
    }

    @Test func gridsNumberingClustersDifferentlyAreEqualAndDiffToNothing() {
        var first = ScreenGrid(width: 12, height: 2)
        first.put("👋🏽 🇰🇷", row: 0, column: 0)
        first.put("🇰🇷 e\u{301}", row: 1, column: 0)
        var second = ScreenGrid(width: 12, height: 2)
        // Drawn in the other order: the same clusters get other numbers.
        second.put("🇰🇷 e\u{301}", row: 1, column: 0)
        second.put("👋🏽 🇰🇷", row: 0, column: 0)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(ScreenDiff.output(from: first, to: second, cursorRow: 0, cursorColumn: 0) == "\u{1B}[1;1H")
    }

    @Test func theSameNumberForAnotherClusterIsAChange() {
        var first = ScreenGrid(width: 6, height: 1)
        first.put("👋🏽", row: 0, column: 0)
        var second = ScreenGrid(width: 6, height: 1)
        second.put("🇰🇷", row: 0, column: 0)  // also the table's first entry
        #expect(first != second)
        let out = ScreenDiff.output(from: first, to: second, cursorRow: 0, cursorColumn: 0)
        #expect(out.contains("🇰🇷"))
    }

    @Test func wideCharactersCutAtEitherEndLeaveNoHalf() {
        var grid = ScreenGrid(width: 6, height: 1)
        grid.put("한글한", row: 0, column: 0)
        grid.put("ab", row: 0, column: 1)  // over the right half of 한 and the left half of 글
        #expect(grid.lines == [" ab 한"])
        for column in 0..<6 where grid[0, column].isContinuation {
            #expect(DisplayWidth.of(grid[0, column - 1].character) == 2)
        }
    }
}
