import ChatScreen
import Testing

@Suite struct DisplayWidthTests {
    /// The line console's prompt keeps the end of what is typed.
    @Test func tailFitsWholeCharacters() {
        #expect(DisplayWidth.tail(of: "ab한국", fitting: 5) == "b한국")
        #expect(DisplayWidth.tail(of: "ab한국", fitting: 3) == "국")
        #expect(DisplayWidth.tail(of: "a👨‍👩‍👧", fitting: 2) == "👨‍👩‍👧")  // one cluster, two columns
        #expect(DisplayWidth.tail(of: "abc", fitting: 0) == "")
    }

    @Test func narrowWideAndZeroWidth() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("한글") == 4)
        #expect(DisplayWidth.of("漢字") == 4)
        #expect(DisplayWidth.of("カタカナ") == 8)
        #expect(DisplayWidth.of("ＡＢ") == 4)  // fullwidth Latin
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)  // skin tone joins the base
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)  // ZWJ family: one cluster
        #expect(DisplayWidth.of("🇰🇷") == 2)
        #expect(DisplayWidth.of("❤️") == 2)  // text-default heart with VS16
        #expect(DisplayWidth.of("❤") == 1)
        #expect(DisplayWidth.of("e\u{301}") == 1)  // combining acute
        #expect(DisplayWidth.of("\u{301}") == 0)
        #expect(DisplayWidth.of("\u{200B}") == 0)  // zero-width space
        #expect(DisplayWidth.of("─│●") == 3)  // ambiguous: narrow
        #expect(DisplayWidth.of("\u{1}") == 0)
        // Conjoining jamo: the leading consonant is wide, vowel and final join it.
        #expect(DisplayWidth.of("\u{1100}\u{1161}\u{11A8}") == 2)
    }

    @Test func tableIsSortedAndDisjoint() {
        let ranges = DisplayWidth.wideRangesForTesting
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound < b.lowerBound) }
    }

    @Test func gridKeepsWideCharactersWhole() {
        var grid = ScreenGrid(width: 5, height: 2)
        #expect(grid.put("한글x", row: 0, column: 0) == 5)
        #expect(grid[0, 1].isContinuation)
        #expect(grid.text(row: 0) == "한글x")
        // A wide character that would straddle the edge becomes a space.
        #expect(grid.put("ab한글", row: 1, column: 0) == 5)
        #expect(grid.lines[1] == "ab한")
        // Overwriting the right half of a wide character blanks its left half.
        grid.put("z", row: 0, column: 1)
        #expect(grid.text(row: 0) == " z글x")
    }
}
