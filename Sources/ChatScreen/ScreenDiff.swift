/// The bytes that turn one frame into the next on an ANSI terminal: only
/// changed cells are written, with a cursor move where a run of them
/// starts and an SGR only where the style changes.
public enum ScreenDiff {
    /// `previous` nil (or another size) redraws everything.
    public static func output(from previous: ScreenGrid?, to next: ScreenGrid, cursorRow: Int, cursorColumn: Int) -> String {
        var out = ""
        let full = previous == nil || previous!.width != next.width || previous!.height != next.height
        if full { out += "\u{1B}[0m\u{1B}[2J" }
        let old = full ? [] : previous!.cells
        let width = next.width
        var current: CellStyle? = nil
        next.cells.withUnsafeBufferPointer { new in
            old.withUnsafeBufferPointer { old in
                for row in 0..<next.height {
                    var column = 0
                    var cursorAt = -1
                    let base = row * width
                    while column < width {
                        if !full && old[base + column] == new[base + column] { column += 1; continue }
                        let cell = new[base + column]
                        if cell.isContinuation { column += 1; continue }
                        if cursorAt != column { out += "\u{1B}[\(row + 1);\(column + 1)H" }
                        if current != cell.style { out += sgr(cell.style); current = cell.style }
                        out.append(cell.character)
                        column += column + 1 < width && new[base + column + 1].isContinuation ? 2 : 1
                        cursorAt = column
                    }
                }
            }
        }
        if current != nil { out += "\u{1B}[0m" }
        out += "\u{1B}[\(cursorRow + 1);\(cursorColumn + 1)H"
        return out
    }

    /// Select Graphic Rendition for `style`, from a reset.
    static func sgr(_ style: CellStyle) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.reverse { codes.append("7") }
        if style.foreground != .standard { codes.append(style.foreground == .gray ? "90" : String(30 + Int(style.foreground.rawValue))) }
        if style.background != .standard { codes.append(style.background == .gray ? "100" : String(40 + Int(style.background.rawValue))) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
