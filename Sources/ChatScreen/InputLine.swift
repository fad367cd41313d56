import ChatCore

/// The line being typed and the cursor in it, edited as readline does.
/// Arrivals never touch it; it refuses an insert that would take it past
/// the message limit (240 graphemes), so the counter can never show 241.
///
/// The cursor counts graphemes (a skin-toned emoji, a Korean syllable, a
/// letter with its accents are one step each), so no edit can split a
/// cluster. At most 240 graphemes: each edit may walk the whole line.
public struct InputLine: Hashable, Sendable {
    public private(set) var text = ""
    /// Graphemes typed, kept alongside `text` so the counter costs nothing.
    public private(set) var count = 0
    /// Graphemes before the cursor, 0...count.
    public private(set) var cursor = 0
    public static let limit = ChatLimits.maxMessageCharacters

    public init() {}

    public init(_ text: String) {
        set(text)
    }

    private var characters: [Character] { Array(text) }

    /// Inserts `typed` at the cursor; returns false (and changes nothing)
    /// when it would pass the limit. A combining mark joins the grapheme
    /// before it and so never counts as one more.
    @discardableResult
    public mutating func insert(_ typed: String) -> Bool {
        let chars = characters
        let before = String(chars[..<cursor]) + typed
        let candidate = before + String(chars[cursor...])
        let newCount = candidate.count
        if newCount > Self.limit || candidate.utf8.count > ChatLimits.maxMessageBytes { return false }
        text = candidate
        count = newCount
        cursor = min(newCount, before.count)
        return true
    }

    /// Deletes the grapheme before the cursor (Backspace).
    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        remove(cursor - 1..<cursor)
    }

    /// Deletes the grapheme under the cursor (Delete).
    public mutating func deleteForward() {
        guard cursor < count else { return }
        remove(cursor..<cursor + 1)
    }

    public mutating func moveLeft() { cursor = max(0, cursor - 1) }
    public mutating func moveRight() { cursor = min(count, cursor + 1) }
    public mutating func moveHome() { cursor = 0 }
    public mutating func moveEnd() { cursor = count }
    /// Puts the cursor at `offset` graphemes, clamped to the line.
    public mutating func move(to offset: Int) { cursor = min(max(0, offset), count) }

    /// Back to the start of this or the previous word (Alt-B, Ctrl-Left):
    /// words are letters and digits, as in readline.
    public mutating func moveWordLeft() { cursor = wordStart(before: cursor, isWord: Self.isWordCharacter) }
    /// On to the end of this or the next word (Alt-F, Ctrl-Right).
    public mutating func moveWordRight() { cursor = wordEnd(after: cursor) }

    /// Removes from the cursor to the end (Ctrl-K); returns what went.
    public mutating func killToEnd() -> String { remove(cursor..<count) }
    /// Removes from the start to the cursor (Ctrl-U).
    public mutating func killToStart() -> String { remove(0..<cursor) }
    /// Removes the whitespace-delimited word before the cursor (Ctrl-W).
    public mutating func killBigWordBackward() -> String {
        remove(wordStart(before: cursor) { !$0.isWhitespace }..<cursor)
    }
    /// Removes the letters-and-digits word before the cursor (Alt-Backspace).
    public mutating func killWordBackward() -> String {
        remove(wordStart(before: cursor, isWord: Self.isWordCharacter)..<cursor)
    }
    /// Removes to the end of the word after the cursor (Alt-D).
    public mutating func killWordForward() -> String { remove(cursor..<wordEnd(after: cursor)) }

    /// Swaps the grapheme before the cursor with the one under it and moves
    /// on (Ctrl-T); at the end of the line, swaps the last two.
    public mutating func transpose() {
        guard count >= 2, cursor > 0 else { return }
        var chars = characters
        let at = min(cursor, count - 1)
        chars.swapAt(at - 1, at)
        let swapped = String(chars)
        // Swapping can join graphemes (a mark moved after a letter): only
        // keep a swap that leaves the count as it was.
        guard swapped.count == count else { return }
        text = swapped
        cursor = at + 1
    }

    /// Replaces the whole line (history recall), the cursor at its end.
    /// Text past the limit is cut at it.
    public mutating func set(_ newText: String) {
        var chars = Array(newText.prefix(Self.limit))
        while String(chars).utf8.count > ChatLimits.maxMessageBytes { chars.removeLast() }
        text = String(chars)
        count = text.count
        cursor = count
    }

    /// Replaces graphemes `range` with `replacement`, the cursor after it;
    /// false (nothing changed) past the limit. Tab completion uses it.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> Bool {
        let chars = characters
        let before = String(chars[..<range.lowerBound]) + replacement
        let candidate = before + String(chars[range.upperBound...])
        guard candidate.count <= Self.limit, candidate.utf8.count <= ChatLimits.maxMessageBytes else { return false }
        text = candidate
        count = candidate.count
        cursor = min(count, before.count)
        return true
    }

    /// Takes the text out, leaving the line empty.
    public mutating func take() -> String {
        defer { text = ""; count = 0; cursor = 0 }
        return text
    }

    @discardableResult
    private mutating func remove(_ range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        var chars = characters
        let removed = String(chars[range])
        chars.removeSubrange(range)
        text = String(chars)
        // Removing can join what was apart (a mark after a deleted base):
        // recount rather than subtract.
        count = text.count
        cursor = min(range.lowerBound, count)
        return removed
    }

    static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }

    /// Skips non-word graphemes back from `offset`, then word ones.
    private func wordStart(before offset: Int, isWord: (Character) -> Bool) -> Int {
        let chars = characters
        var i = offset
        while i > 0, !isWord(chars[i - 1]) { i -= 1 }
        while i > 0, isWord(chars[i - 1]) { i -= 1 }
        return i
    }

    private func wordEnd(after offset: Int) -> Int {
        let chars = characters
        var i = offset
        while i < chars.count, !Self.isWordCharacter(chars[i]) { i += 1 }
        while i < chars.count, Self.isWordCharacter(chars[i]) { i += 1 }
        return i
    }
}
