import ChatCore

/// The line being typed. Arrivals never touch it; it refuses a character
/// that would take it past the message limit (240 graphemes), so the
/// counter can never show 241.
public struct InputLine: Hashable, Sendable {
    public private(set) var text = ""
    /// Graphemes typed, kept alongside `text` so the counter costs nothing.
    public private(set) var count = 0
    public static let limit = ChatLimits.maxMessageCharacters

    public init() {}

    /// Appends `typed`; returns false (and changes nothing) when it would
    /// pass the limit. A combining mark joins the last grapheme and so never
    /// counts as one more.
    @discardableResult
    public mutating func insert(_ typed: String) -> Bool {
        let candidate = text + typed
        let newCount = candidate.count
        if newCount > Self.limit || candidate.utf8.count > ChatLimits.maxMessageBytes { return false }
        text = candidate
        count = newCount
        return true
    }

    /// Deletes the last grapheme.
    public mutating func deleteBackward() {
        guard !text.isEmpty else { return }
        text.removeLast()
        count -= 1
    }

    /// Takes the text out, leaving the line empty.
    public mutating func take() -> String {
        defer { text = ""; count = 0 }
        return text
    }
}
