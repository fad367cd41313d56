extension InputLine {
    /// The part of the line that fits the input row, and where the cursor
    /// falls in it: the row never holds more than `width` columns, so no
    /// amount of wide text can spill over the status line above.
    public struct Window: Hashable, Sendable {
        /// What to draw: a newline shows as `newlineMark`.
        public var text: String
        /// Columns from the window's start to the cursor, 0..<width.
        public var cursorColumn: Int
        /// Text is hidden before (after) the window.
        public var clippedLeft: Bool
        public var clippedRight: Bool
    }

    /// A pasted line end, shown on one row (a newline cannot be drawn).
    public static let newlineMark: Character = "↵"

    /// The window of `width` columns around the cursor. It depends on the
    /// cursor alone: it starts at column 0 while the cursor fits, and
    /// otherwise moves a third of the width at a time, so typing at the end
    /// shows the tail and moving left does not scroll on every key.
    public func window(width: Int) -> Window {
        let width = max(1, width)
        let chars = Array(text)
        let widths = chars.map { $0 == "\n" ? 1 : DisplayWidth.of($0) }
        var cursorWidth = 0
        for w in widths[..<cursor] { cursorWidth += w }
        var startColumn = 0
        if cursorWidth > width - 1 {
            let step = max(1, width / 3)
            startColumn = (cursorWidth - width + 1 + step - 1) / step * step
        }
        var first = 0, column = 0
        while first < chars.count, column < startColumn {
            column += widths[first]
            first += 1
        }
        var shown = ""
        var used = 0
        var last = first
        while last < chars.count, used + widths[last] <= width {
            shown.append(chars[last] == "\n" ? Self.newlineMark : chars[last])
            used += widths[last]
            last += 1
        }
        return Window(text: shown, cursorColumn: max(0, min(width - 1, cursorWidth - column)), clippedLeft: first > 0, clippedRight: last < chars.count)
    }
}
