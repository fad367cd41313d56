/// The bytes of one frame's terminal output, built without intermediate
/// strings: escape sequences, numbers and cell text appended in place.
struct TerminalBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `number` in decimal (negative numbers as 0: rows and columns only).
    mutating func append(_ number: Int) {
        let value = max(0, number)
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(0x30 + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// `ESC[row;columnH`, both counted from 1.
    mutating func moveCursor(row: Int, column: Int) {
        append("\u{1B}[")
        append(row)
        bytes.append(0x3B)
        append(column)
        bytes.append(0x48)
    }

    /// `ESC[columnG`, counted from 1.
    mutating func moveCursor(column: Int) {
        append("\u{1B}[")
        append(column)
        bytes.append(0x47)
    }

    /// Select Graphic Rendition for packed style bits, from a reset:
    /// `ESC[0;1;2;7;3x;4xm` with only the parts the style has.
    mutating func sgr(_ styleBits: UInt64) {
        let style = PackedCell.unpack(styleBits)
        append("\u{1B}[0")
        if style.bold { append(";1") }
        if style.dim { append(";2") }
        if style.reverse { append(";7") }
        if style.foreground != .standard {
            if style.foreground == .gray { append(";90") } else { append(";3"); bytes.append(0x30 + style.foreground.rawValue) }
        }
        if style.background != .standard {
            if style.background == .gray { append(";100") } else { append(";4"); bytes.append(0x30 + style.background.rawValue) }
        }
        bytes.append(0x6D)
    }

    /// The text of `cell`, whose clusters are in `grid`'s table.
    mutating func character(_ cell: PackedCell, of grid: ScreenGrid) {
        let code = cell.code
        if code < 0x80 {
            bytes.append(UInt8(code))
        } else if cell.isInterned {
            bytes.append(contentsOf: grid.character(of: cell).utf8)
        } else if let scalar = Unicode.Scalar(code) {
            UTF8.encode(scalar) { bytes.append($0) }
        }
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}
