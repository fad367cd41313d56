/// The bytes that turn one frame into the next on an ANSI terminal: only
/// changed cells are written, with a cursor move where a run of them
/// starts and an SGR only where the style changes.
///
/// The terminal may not agree with `DisplayWidth` about a cluster (tmux 3.3
/// draws 👋🏽 in 4 columns, ❤️ in 1). So that a wrong guess never leaves a
/// stray cell, a changed row is written cell by cell only up to its first
/// such cluster (old or new: everything left of it sits where the grid
/// says); from there, if anything there changed, the rest of the row is
/// erased (`ESC[K`) and written again, and after each such cluster the
/// cursor is put back in step by column (`ESC[nG`): a wider glyph is
/// overwritten by what follows, a narrower one leaves a blank. The session
/// also turns autowrap off, so nothing drawn past the right edge reaches
/// another row.
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
                /// Writes columns `from..<to` of `row`: every cell (`all`)
                /// or the changed ones, plain blanks skipped when the row was
                /// just erased there.
                func write(row: Int, from: Int, to: Int, all: Bool, erased: Bool) {
                    let base = row * width
                    var column = from
                    var cursorAt = erased ? from : -1
                    while column < to {
                        let cell = new[base + column]
                        let changed = all || old[base + column] != cell
                        if !changed || cell.isContinuation || (erased && cell == .blank) { column += 1; continue }
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
                for row in 0..<next.height {
                    if full { write(row: row, from: 0, to: width, all: true, erased: false); continue }
                    let base = row * width
                    var first = 0
                    while first < width && old[base + first] == new[base + first] { first += 1 }
                    if first == width { continue }  // unchanged row
                    var last = width - 1
                    while old[base + last] == new[base + last] { last -= 1 }
                    // Only a cluster at or before the last change matters.
                    var uncertain = 0
                    while uncertain <= last && !old[base + uncertain].hasUncertainWidth && !new[base + uncertain].hasUncertainWidth { uncertain += 1 }
                    // The erase starts where a character starts in both frames:
                    // from the right half of a wide one it would take it away.
                    while uncertain > 0 && uncertain < width && (old[base + uncertain].isContinuation || new[base + uncertain].isContinuation) { uncertain -= 1 }
                    write(row: row, from: first, to: min(uncertain, last + 1), all: false, erased: false)
                    guard last >= uncertain else { continue }
                    out += "\u{1B}[\(row + 1);\(uncertain + 1)H"
                    if current != .plain { out += "\u{1B}[0m"; current = .plain }
                    out += "\u{1B}[K"
                    write(row: row, from: uncertain, to: width, all: true, erased: true)
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
