/// The line being typed at the console, fed one byte at a time from a
/// terminal in non-canonical mode. Pure: the terminal layer echoes by
/// redrawing `text`, so an arriving message can be printed above the line
/// and the line drawn again, never broken.
///
/// Keys: printable UTF-8 inserts at the end; Backspace deletes a character
/// (a whole grapheme: 한, 👍🏽); Ctrl-U clears; Ctrl-W deletes a word; Enter
/// submits; Ctrl-D on an empty line ends input; Ctrl-L redraws; escape
/// sequences (arrows, function keys) are swallowed whole.
struct LineEditor: Sendable {
    enum Action: Equatable, Sendable {
        case none
        case changed
        case submit(String)
        case endOfInput
        case redraw
    }

    private(set) var text = ""
    private var utf8: [UInt8] = []
    private var escape = EscapeState.none

    private enum EscapeState: Sendable { case none, started, sequence }

    /// Longest line kept (bytes); more input is dropped. A console line is a
    /// message of at most 240 characters, or a command.
    static let maxBytes = 4096

    mutating func feed(_ byte: UInt8) -> Action {
        switch escape {
        case .started:
            // ESC [ or ESC O start a sequence; anything else is a lone escape.
            escape = (byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O")) ? .sequence : .none
            return .none
        case .sequence:
            if (0x40...0x7E).contains(byte) { escape = .none }
            return .none
        case .none:
            break
        }
        switch byte {
        case 0x0D, 0x0A:
            let line = text
            text = ""
            utf8 = []
            return .submit(line)
        case 0x7F, 0x08:
            guard !text.isEmpty else { return .none }
            text.removeLast()
            return .changed
        case 0x15:  // Ctrl-U
            text = ""
            return .changed
        case 0x17:  // Ctrl-W: trailing spaces, then the word before them
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
            return .changed
        case 0x04:  // Ctrl-D
            return text.isEmpty ? .endOfInput : .none
        case 0x0C:  // Ctrl-L
            return .redraw
        case 0x1B:
            escape = .started
            return .none
        case 0x00...0x1F:
            return .none
        default:
            return insert(byte)
        }
    }

    private mutating func insert(_ byte: UInt8) -> Action {
        utf8.append(byte)
        let expected = switch utf8[0] {
        case 0xC0...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF7: 4
        case 0x80...0xBF, 0xF8...0xFF: 0  // stray continuation or invalid lead: dropped
        default: 1
        }
        if expected == 0 { utf8 = []; return .none }
        guard utf8.count >= expected else { return .none }
        defer { utf8 = [] }
        guard let scalar = String(validating: utf8, as: UTF8.self), text.utf8.count + utf8.count <= Self.maxBytes else { return .none }
        text += scalar
        return .changed
    }
}

/// Terminal columns a string takes: East Asian wide characters and emoji
/// two, combining marks none, everything else one. An approximation of
/// wcwidth that needs no locale.
enum DisplayWidth {
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isDefaultIgnorableCodePoint { return 0 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F900...0x1F9FF, 0x1FA70...0x1FAFF,
             0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// The longest suffix of `text` that fits in `columns`.
    static func tail(of text: String, fitting columns: Int) -> String {
        var width = 0
        var start = text.endIndex
        while start > text.startIndex {
            let previous = text.index(before: start)
            let next = of(String(text[previous]))
            if width + next > columns { break }
            width += next
            start = previous
        }
        return String(text[start...])
    }
}
