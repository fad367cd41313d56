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
