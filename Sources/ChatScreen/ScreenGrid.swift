/// A screen as rows of cells, drawn with no terminal at hand: the renderer
/// fills it, tests read it back, `ScreenDiff` writes only what changed.
public struct ScreenGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [Cell]

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// Blanks every cell in place: a frame drawn into last frame's grid
    /// allocates nothing (a 200x60 grid is ~380 KB, fresh pages each time).
    public mutating func clear() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: .blank) }
    }

    public subscript(row: Int, column: Int) -> Cell {
        cells[row * width + column]
    }

    /// Writes `text` at (row, column), clipped to `limit` columns (and the
    /// row's end); returns the columns used. A wide character that does not
    /// fit is replaced by a space rather than cut in half. Zero-width
    /// clusters (a stray combining mark) are dropped.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, limit: Int = .max, style: CellStyle = .plain) -> Int {
        guard row >= 0, row < height, column >= 0, column < width else { return 0 }
        let end = column + min(limit, width - column)
        // Printable ASCII: one byte, one cell, no grapheme breaking needed.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            var x = column
            for byte in text.utf8 {
                guard x < end else { break }
                clearWide(row: row, column: x)
                cells[row * width + x] = Cell(scalar: Unicode.Scalar(byte), style: style)
                x += 1
            }
            return x - column
        }
        var x = column
        for character in text {
            let w = DisplayWidth.of(character)
            if w == 0 { continue }
            if x + w > end {
                if x < end {
                    clearWide(row: row, column: x)  // no half of an older wide character may stay
                    cells[row * width + x] = Cell(" ", style: style)
                    x += 1
                }
                break
            }
            clearWide(row: row, column: x)
            cells[row * width + x] = Cell(character, style: style)
            if w == 2 {
                clearWide(row: row, column: x + 1)
                cells[row * width + x + 1] = Cell(" ", style: style, isContinuation: true)
            }
            x += w
        }
        return x - column
    }

    /// Paints columns `from..<to` of `row` blank in `style`.
    public mutating func fill(row: Int, from: Int = 0, to: Int? = nil, style: CellStyle = .plain) {
        guard row >= 0, row < height else { return }
        let start = max(0, from), stop = min(width, to ?? width)
        guard start < stop else { return }
        if start > 0, cells[row * width + start].isContinuation { cells[row * width + start - 1] = Cell(" ", style: cells[row * width + start - 1].style) }
        let blank = Cell(scalar: " ", style: style)
        for x in start..<stop { cells[row * width + x] = blank }
        if stop < width, cells[row * width + stop].isContinuation { cells[row * width + stop] = Cell(" ", style: cells[row * width + stop].style) }
    }

    /// Overwriting half of a wide character leaves the other half blank.
    private mutating func clearWide(row: Int, column: Int) {
        let index = row * width + column
        if cells[index].isContinuation, column > 0 {
            cells[index - 1] = Cell(" ", style: cells[index - 1].style)
        } else if column + 1 < width, cells[index + 1].isContinuation {
            cells[index + 1] = Cell(" ", style: cells[index + 1].style)
        }
    }

    /// The text of one row as a terminal would show it (continuation cells
    /// skipped), trailing spaces kept.
    public func text(row: Int) -> String {
        var line = ""
        for x in 0..<width where !self[row, x].isContinuation { line.append(self[row, x].character) }
        return line
    }

    /// Every row, trailing spaces trimmed: what tests compare.
    public var lines: [String] {
        (0..<height).map { row in
            var line = text(row: row)
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}
