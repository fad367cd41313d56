/// The bytes that turn one frame into the next on an ANSI terminal: only
/// changed cells are written, with a cursor move where a run of them
/// starts and an SGR only where the style changes.
///
/// The terminal may not agree with `DisplayWidth` about a cluster (tmux 3.3
/// draws 👋🏽 in 4 columns, ❤️ in 1). So that a wrong guess never leaves a
/// stray cell, a changed row that holds (or held) such a cluster is erased
/// (`ESC[2K`) and written whole, and after each such cluster the cursor is
/// put back in step by column (`ESC[nG`): a wider glyph is overwritten by
/// what follows, a narrower one leaves a blank. The session also turns
/// autowrap off, so nothing drawn past the right edge reaches another row.
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
                    let base = row * width
                    var column = 0
                    var rewrite = false
                    if !full {
                        while column < width && old[base + column] == new[base + column] { column += 1 }
                        if column == width { continue }  // unchanged row
                        rewrite = hasUncertainWidth(old, base, width) || hasUncertainWidth(new, base, width)
                    }
                    var cursorAt = -1
                    if rewrite {
                        out += "\u{1B}[\(row + 1);1H"
                        if current != .plain { out += "\u{1B}[0m"; current = .plain }
                        out += "\u{1B}[2K"
                        column = 0
                        cursorAt = 0
                    }
                    while column < width {
                        let cell = new[base + column]
                        let changed = full || rewrite || old[base + column] != cell
                        // After ESC[2K a plain blank is already there.
                        if !changed || cell.isContinuation || (rewrite && cell == .blank) { column += 1; continue }
                        if cursorAt != column { out += "\u{1B}[\(row + 1);\(column + 1)H" }
                        if current != cell.style { out += sgr(cell.style); current = cell.style }
                        out.append(cell.character)
                        var after = column + 1
                        while after < width && new[base + after].isContinuation { after += 1 }
                        if cell.hasUncertainWidth && after < width { out += "\u{1B}[\(after + 1)G" }
                        column = after
                        cursorAt = after
                    }
                }
            }
        }
        if current != nil { out += "\u{1B}[0m" }
        out += "\u{1B}[\(cursorRow + 1);\(cursorColumn + 1)H"
        return out
    }

    private static func hasUncertainWidth(_ cells: UnsafeBufferPointer<Cell>, _ base: Int, _ width: Int) -> Bool {
        for index in base..<(base + width) where cells[index].hasUncertainWidth { return true }
        return false
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
