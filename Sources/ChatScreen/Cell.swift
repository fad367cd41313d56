/// The colours a cell can take: the terminal's default and the eight ANSI
/// colours (plus bright black as gray), so any terminal can show them.
public enum CellColor: UInt8, Hashable, Sendable {
    case standard = 255
    case black = 0, red, green, yellow, blue, magenta, cyan, white
    case gray = 8
}

/// How a cell is drawn.
public struct CellStyle: Hashable, Sendable {
    public var foreground: CellColor
    public var background: CellColor
    public var bold: Bool
    public var reverse: Bool
    public var dim: Bool

    public init(foreground: CellColor = .standard, background: CellColor = .standard, bold: Bool = false, reverse: Bool = false, dim: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.dim = dim
    }

    public static let plain = CellStyle()
}

/// One column of one row, as read back from a `ScreenGrid` (which stores
/// cells packed, see `PackedCell`). A wide character fills its own cell and
/// the one to its right, which is marked `isContinuation` and holds no text.
public struct Cell: Hashable, Sendable {
    public var character: Character
    public var style: CellStyle
    /// The right half of a wide character: the terminal draws nothing here.
    public var isContinuation: Bool

    public init(_ character: Character = " ", style: CellStyle = .plain, isContinuation: Bool = false) {
        self.character = character
        self.style = style
        self.isContinuation = isContinuation
    }

    /// Terminals disagree on this character's width: any cluster of more
    /// than one scalar (skin tones, ZWJ sequences, flags, VS16, combining
    /// marks: tmux 3.3 draws 👋🏽 in 4 columns and ❤️ in 1), emoji (widths
    /// changed between Unicode versions), and symbols that became emoji.
    /// `ScreenDiff` draws rows holding one so that a wrong guess cannot
    /// leave a stray cell.
    public var hasUncertainWidth: Bool {
        let scalars = character.unicodeScalars
        return scalars.count != 1 || Self.hasUncertainWidth(scalar: scalars.first!.value)
    }

    /// The rule for a cell holding one scalar (a cluster of several is
    /// always uncertain).
    static func hasUncertainWidth(scalar code: UInt32) -> Bool {
        code >= 0x1F000 || ((0x2190...0x2BFF).contains(code) && DisplayWidth.isWide(code))
    }

    public static let blank = Cell()
}
