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
///
/// Cells are compared as integers (`PackedCell`); only cells holding a
/// cluster of several scalars are compared by their text, since each grid
/// numbers its clusters on its own.
public enum ScreenDiff {
    /// `previous` nil (or another size) redraws everything.
    public static func output(from previous: ScreenGrid?, to next: ScreenGrid, cursorRow: Int, cursorColumn: Int) -> String {
        let full = previous == nil || previous!.width != next.width || previous!.height != next.height
        var out = TerminalBytes(capacity: full ? next.packed.count * 2 : 4_096)
        if full { out.append("\u{1B}[0m\u{1B}[2J") }
        let before = full ? next : previous!
        let width = next.width
        let plain = PackedCell.pack(.plain)
        var current: UInt64? = nil
        next.packed.withUnsafeBufferPointer { new in
            before.packed.withUnsafeBufferPointer { old in
                func same(_ index: Int) -> Bool {
                    let a = old[index], b = new[index]
                    if (a.bits | b.bits) & PackedCell.internedBit == 0 { return a.bits == b.bits }
                    return before.same(index, as: index, in: next)
                }
                /// Writes columns `from..<to` of `row`: every cell (`all`)
                /// or the changed ones, plain blanks skipped when the row was
                /// just erased there.
                func write(row: Int, from: Int, to: Int, all: Bool, erased: Bool) {
                    let base = row * width
                    var column = from
                    var cursorAt = erased ? from : -1
                    while column < to {
                        let cell = new[base + column]
                        let changed = all || !same(base + column)
                        if !changed || cell.isContinuation || (erased && cell == .blank) { column += 1; continue }
                        if cursorAt != column { out.moveCursor(row: row + 1, column: column + 1) }
                        if current != cell.styleBits { out.sgr(cell.styleBits); current = cell.styleBits }
                        out.character(cell, of: next)
                        var after = column + 1
                        while after < width && new[base + after].isContinuation { after += 1 }
                        if cell.hasUncertainWidth && after < width { out.moveCursor(column: after + 1) }
                        column = after
                        cursorAt = after
                    }
                }
                for row in 0..<next.height {
                    if full { write(row: row, from: 0, to: width, all: true, erased: false); continue }
                    let base = row * width
                    var first = 0
                    while first < width && same(base + first) { first += 1 }
                    if first == width { continue }  // unchanged row
                    var last = width - 1
                    while same(base + last) { last -= 1 }
                    // Only a cluster at or before the last change matters.
                    var uncertain = 0
                    while uncertain <= last && !old[base + uncertain].hasUncertainWidth && !new[base + uncertain].hasUncertainWidth { uncertain += 1 }
                    // The erase starts where a character starts in both frames:
                    // from the right half of a wide one it would take it away.
                    while uncertain > 0 && uncertain < width && (old[base + uncertain].isContinuation || new[base + uncertain].isContinuation) { uncertain -= 1 }
                    write(row: row, from: first, to: min(uncertain, last + 1), all: false, erased: false)
                    guard last >= uncertain else { continue }
                    out.moveCursor(row: row + 1, column: uncertain + 1)
                    if current != plain { out.append("\u{1B}[0m"); current = plain }
                    out.append("\u{1B}[K")
                    write(row: row, from: uncertain, to: width, all: true, erased: true)
                }
            }
        }
        if current != nil { out.append("\u{1B}[0m") }
        out.moveCursor(row: cursorRow + 1, column: cursorColumn + 1)
        return out.string
    }

}
