import ChatScreen

/// The line being typed at the console, fed one byte at a time from a
/// terminal in non-canonical mode. Pure: the terminal layer echoes by
/// redrawing `text`, so an arriving message can be printed above the line
/// and the line drawn again, never broken.
///
/// The bytes become keys through the full screen's `KeyDecoder` (one
/// decoding of UTF-8, controls and escape sequences for both front ends);
/// this maps those keys to a line. Keys: text inserts at the end;
/// Backspace deletes a character (a whole grapheme: 한, 👍🏽); Ctrl-U
/// clears; Ctrl-W deletes a word; Enter submits; Ctrl-D on an empty line
/// ends input; Ctrl-L redraws; every other key (arrows, function keys,
/// Alt) is ignored.
struct LineEditor: Sendable {
    enum Action: Equatable, Sendable {
        case none
        case changed
        case submit(String)
        case endOfInput
        case redraw
    }

    private(set) var text = ""
    private var decoder = KeyDecoder()

    /// Longest line kept (bytes); more input is dropped. A console line is a
    /// message of at most 240 characters, or a command.
    static let maxBytes = 4096

    mutating func feed(_ byte: UInt8) -> Action {
        // One byte completes at most one key (a character, a control, or
        // the last byte of a sequence).
        decoder.decode(CollectionOfOne(byte)).reduce(Action.none) { _, key in apply(key) }
    }

    private mutating func apply(_ key: ScreenKey) -> Action {
        switch key {
        case .enter:
            defer { text = "" }
            return .submit(text)
        case .backspace:
            guard !text.isEmpty else { return .none }
            text.removeLast()
            return .changed
        case .control("u"):
            text = ""
            return .changed
        case .control("w"):  // trailing spaces, then the word before them
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " " { text.removeLast() }
            return .changed
        case .control("d"):
            return text.isEmpty ? .endOfInput : .none
        case .control("l"):
            return .redraw
        case .text(let typed):
            return insert(typed)
        case .paste(let pasted):
            // The console asks for no bracketed paste; if one comes, it is typed on one line.
            return insert(pasted.replacingOccurrences(of: "\n", with: " "))
        default:
            return .none
        }
    }

    private mutating func insert(_ typed: String) -> Action {
        var added = false
        for character in typed where text.utf8.count + character.utf8.count <= Self.maxBytes {
            text.append(character)
            added = true
        }
        return added ? .changed : .none
    }
}
