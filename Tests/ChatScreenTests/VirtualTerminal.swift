import ChatScreen

/// A small terminal for the tests: it runs the bytes `ScreenDiff` writes
/// (cursor moves, erases, text; SGR is ignored) with its own idea of how
/// wide a cluster is, so a test can see what a terminal that disagrees
/// with `DisplayWidth` would keep on screen. Autowrap is off, as the
/// session sets it: text past the right edge is clipped.
struct VirtualTerminal {
    let width: Int
    let height: Int
    /// Each cell holds the glyph that starts there, "" for the columns a
    /// wide glyph covers after its first, " " for blank.
    private(set) var cells: [[String]]
    private var row = 0
    private var column = 0
    /// How the terminal draws a cluster: the glyphs and their widths.
    let glyphs: (Character) -> [(String, Int)]

    init(width: Int, height: Int, glyphs: @escaping (Character) -> [(String, Int)] = VirtualTerminal.tmux33) {
        self.width = width
        self.height = height
        self.glyphs = glyphs
        cells = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    /// tmux 3.3a, measured: a skin-tone modifier is a glyph of its own
    /// (👋🏽 takes 4 columns, 2 and 2) and VS16 does not widen (❤️ takes 1).
    static func tmux33(_ character: Character) -> [(String, Int)] {
        let scalars = Array(character.unicodeScalars)
        if scalars.count == 2, (0x1F3FB...0x1F3FF).contains(scalars[1].value) {
            return [(String(scalars[0]), 2), (String(scalars[1]), 2)]
        }
        if scalars.contains(where: { $0.value == 0xFE0F }), DisplayWidth.of(scalars[0]) == 1 { return [(String(character), 1)] }
        return [(String(character), DisplayWidth.of(character))]
    }

    /// A terminal that agrees with `DisplayWidth` everywhere.
    static func agreeing(_ character: Character) -> [(String, Int)] { [(String(character), DisplayWidth.of(character))] }

    /// The text of a row, trailing blanks trimmed.
    func text(_ row: Int) -> String {
        var line = cells[row].joined()
        while line.last == " " { line.removeLast() }
        return line
    }

    var lines: [String] { (0..<height).map(text) }

    mutating func run(_ output: String) {
        var scalars = Array(output.unicodeScalars)[...]
        var pending = ""
        func flushText() {
            for character in pending { put(character) }
            pending = ""
        }
        while let scalar = scalars.popFirst() {
            guard scalar == "\u{1B}" else { pending.unicodeScalars.append(scalar); continue }
            flushText()
            guard scalars.popFirst() == "[" else { continue }
            var parameter = ""
            while let next = scalars.popFirst() {
                if (0x30...0x3F).contains(next.value) { parameter.unicodeScalars.append(next); continue }
                control(final: next, parameter)
                break
            }
        }
        flushText()
    }

    private mutating func control(final: Unicode.Scalar, _ parameter: String) {
        let numbers = parameter.split(separator: ";").map { Int($0) ?? 1 }
        switch final {
        case "H":
            row = min(height - 1, max(0, (numbers.first ?? 1) - 1))
            column = min(width - 1, max(0, (numbers.count > 1 ? numbers[1] : 1) - 1))
        case "G": column = min(width - 1, max(0, (numbers.first ?? 1) - 1))
        case "J" where parameter == "2":
            cells = Array(repeating: Array(repeating: " ", count: width), count: height)
        case "K":
            let from = parameter == "2" ? 0 : column
            erase(row: row, from: from, to: width)
        default: break  // SGR, modes
        }
    }

    /// Blanks columns from..<to, and whole glyphs cut by either edge.
    private mutating func erase(row: Int, from: Int, to: Int) {
        var start = max(0, from)
        while start > 0, cells[row][start] == "" { start -= 1 }
        var end = min(width, to)
        while end < width, cells[row][end] == "" { end += 1 }
        for x in start..<end { cells[row][x] = " " }
    }

    private mutating func put(_ character: Character) {
        for (glyph, w) in glyphs(character) where w > 0 {
            erase(row: row, from: column, to: min(width, column + w))
            cells[row][column] = glyph
            for x in (column + 1)..<max(column + 1, min(width, column + w)) { cells[row][x] = "" }
            column = min(width - 1, column + w)
        }
    }
}
