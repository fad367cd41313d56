/// A screen as rows of cells, drawn with no terminal at hand: the renderer
/// fills it, tests read it back, `ScreenDiff` writes only what changed.
///
/// Cells are stored packed (`PackedCell`, one integer each); clusters of
/// several scalars live once in the grid's `GraphemeTable`.
public struct ScreenGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    private(set) var packed: [PackedCell]
    private(set) var clusters = GraphemeTable()

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        packed = Array(repeating: .blank, count: self.width * self.height)
    }

    /// Blanks every cell in place: a frame drawn into last frame's grid
    /// allocates nothing (and its cluster table starts over, so it holds
    /// only this frame's clusters).
    public mutating func clear() {
        packed.withUnsafeMutableBufferPointer { $0.update(repeating: .blank) }
        clusters.removeAll()
    }

    public subscript(row: Int, column: Int) -> Cell { cell(at: row * width + column) }

    /// Every cell, decoded, row after row (for tests: it builds them all).
    public var cells: [Cell] { packed.indices.map(cell(at:)) }

    /// How many clusters of several scalars the grid keeps: at most twice
    /// its cells (and a few), however many were drawn into it.
    public var clusterCount: Int { clusters.count }

    func cell(at index: Int) -> Cell {
        let cell = packed[index]
        return Cell(character(of: cell), style: cell.style, isContinuation: cell.isContinuation)
    }

    /// The text a packed cell of this grid holds.
    func character(of cell: PackedCell) -> Character {
        cell.isInterned ? clusters[cell.code] : Character(Unicode.Scalar(cell.code) ?? " ")
    }

    /// Writes `text` at (row, column), clipped to `limit` columns (and the
    /// row's end); returns the columns used. A wide character that does not
    /// fit is replaced by a space rather than cut in half. Zero-width
    /// clusters (a stray combining mark) are dropped.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, limit: Int = .max, style: CellStyle = .plain) -> Int {
        guard row >= 0, row < height, column >= 0, column < width, limit > 0 else { return 0 }
        let end = column + min(limit, width - column)
        let styleBits = PackedCell.pack(style)
        if let used = putASCII(text, row: row, column: column, end: end, styleBits: styleBits) { return used }
        var x = column
        for character in text {
            let scalars = character.unicodeScalars
            var iterator = scalars.makeIterator()
            guard let first = iterator.next() else { continue }
            let single = iterator.next() == nil
            let w = single ? DisplayWidth.of(first) : DisplayWidth.of(character)
            if w == 0 { continue }
            if x + w > end {
                if x < end {
                    clearWide(row: row, column: x)  // no half of an older wide character may stay
                    packed[row * width + x] = PackedCell(code: 0x20, styleBits: styleBits)
                    x += 1
                }
                break
            }
            clearWide(row: row, column: x)
            packed[row * width + x] = PackedCell(code: single ? first.value : intern(character), styleBits: styleBits)
            if w == 2 {
                clearWide(row: row, column: x + 1)
                packed[row * width + x + 1] = PackedCell(code: 0x20, styleBits: styleBits | PackedCell.continuationBit)
            }
            x += w
        }
        return x - column
    }

    /// Printable ASCII: one byte, one cell, no grapheme breaking. Nil when
    /// `text` is anything else.
    private mutating func putASCII(_ text: String, row: Int, column: Int, end: Int, styleBits: UInt64) -> Int? {
        let base = row * width
        let width = self.width
        let written: Int?? = text.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            for byte in bytes where byte < 0x20 || byte >= 0x7F { return nil }
            let count = min(bytes.count, end - column)
            guard count > 0 else { return 0 }
            // Only the ends can cut a wide character: every cell between is overwritten.
            clearWide(row: row, column: column)
            packed.withUnsafeMutableBufferPointer { cells in
                for offset in 0..<count { cells[base + column + offset] = PackedCell(code: UInt32(bytes[offset]), styleBits: styleBits) }
                let stop = column + count
                if stop < width, cells[base + stop].isContinuation { cells[base + stop] = PackedCell(code: 0x20, styleBits: cells[base + stop].styleBits) }
            }
            return count
        }
        if let written { return written }
        // A bridged string: copy it once into contiguous form.
        guard !text.isContiguousUTF8 else { return nil }
        var copy = text
        copy.makeContiguousUTF8()
        return putASCII(copy, row: row, column: column, end: end, styleBits: styleBits)
    }

    /// Paints columns `from..<to` of `row` blank in `style`.
    public mutating func fill(row: Int, from: Int = 0, to: Int? = nil, style: CellStyle = .plain) {
        guard row >= 0, row < height else { return }
        let start = max(0, from), stop = min(width, to ?? width)
        guard start < stop else { return }
        let base = row * width
        if start > 0, packed[base + start].isContinuation { blank(base + start - 1) }
        let blank = PackedCell(code: 0x20, style: style)
        packed.withUnsafeMutableBufferPointer { cells in
            for x in start..<stop { cells[base + x] = blank }
        }
        if stop < width, packed[base + stop].isContinuation { self.blank(base + stop) }
    }

    /// Makes the cell at `index` a plain space, keeping its style.
    private mutating func blank(_ index: Int) {
        packed[index] = PackedCell(code: 0x20, styleBits: packed[index].styleBits)
    }

    /// Overwriting half of a wide character leaves the other half blank.
    private mutating func clearWide(row: Int, column: Int) {
        let index = row * width + column
        if packed[index].isContinuation, column > 0 {
            blank(index - 1)
        } else if column + 1 < width, packed[index + 1].isContinuation {
            blank(index + 1)
        }
    }

    /// The code for a cluster of several scalars. The table is compacted
    /// to the clusters still on the grid when it outgrows twice the cells,
    /// so drawing into a grid that is never cleared cannot grow it without
    /// bound (and compaction stays rare: amortized O(1) a cluster).
    private mutating func intern(_ cluster: Character) -> UInt32 {
        if clusters.count >= 2 * packed.count + 16 {
            var live = GraphemeTable()
            for index in packed.indices where packed[index].isInterned {
                let cell = packed[index]
                packed[index] = PackedCell(bits: cell.bits & ~0xFFFF_FFFF | UInt64(live.code(for: clusters[cell.code])))
            }
            clusters = live
        }
        return clusters.code(for: cluster)
    }

    /// Whether cell `index` of `self` shows what cell `other` of `grid`
    /// shows: integers, unless a cluster from either table is involved.
    func same(_ index: Int, as other: Int, in grid: ScreenGrid) -> Bool {
        let a = packed[index], b = grid.packed[other]
        if (a.bits | b.bits) & PackedCell.internedBit == 0 { return a.bits == b.bits }
        return a.isInterned && b.isInterned && a.bits >> 32 == b.bits >> 32 && clusters[a.code] == grid.clusters[b.code]
    }

    public static func == (lhs: ScreenGrid, rhs: ScreenGrid) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height else { return false }
        for index in lhs.packed.indices where !lhs.same(index, as: index, in: rhs) { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        for cell in packed {
            if cell.isInterned {
                hasher.combine(cell.bits >> 32)
                hasher.combine(clusters[cell.code])
            } else {
                hasher.combine(cell.bits)
            }
        }
    }

    /// The text of one row as a terminal would show it (continuation cells
    /// skipped), trailing spaces kept.
    public func text(row: Int) -> String {
        var line = ""
        for x in 0..<width where !packed[row * width + x].isContinuation { line.append(character(of: packed[row * width + x])) }
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
