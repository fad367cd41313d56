/// The chat core's limits, in one place. docs/OPERATIONS.md's ChatLimits table lists
/// `documentedRows`, checked by a test: a new limit is a constant here, a
/// row in `documentedRows` and the same row in docs/OPERATIONS.md.
public enum ChatLimits {
    /// Most characters in one message, counted as grapheme clusters so a
    /// Korean syllable or an emoji with modifiers counts as one.
    public static let maxMessageCharacters = 240
    /// A cap on a message's UTF-8 size, because one grapheme cluster can be
    /// arbitrarily long (combining marks); 240 family emoji fit comfortably.
    public static let maxMessageBytes = 8 * 1024
    /// Messages each room keeps in memory; the store keeps all of them.
    public static let roomCapacity = 100
    /// Most characters in a nickname or a stage name.
    public static let maxNameCharacters = 32
    /// Most UTF-8 bytes in a name (32 Korean syllables take 96), so a beacon
    /// with both names stays well under 1 KiB.
    public static let maxNameBytes = 128
    /// Message ids each room remembers for dropping duplicates, beyond the
    /// ones in its buffer (echoes and replays arrive late).
    public static let recentIDMemory = 1024
    /// Most bytes in one frame's JSON. On a link the record layer's bound
    /// is tighter (65519, checked from a record's header before its body
    /// is buffered); the overlay's frames carry payloads within this one.
    public static let maxFrameBytes = 64 * 1024
    /// Bytes of stored messages one other peer may author (text, names and
    /// signature plus 64 a row; DMs and public alike) before its new ones
    /// are refused, so one peer cannot fill the disk for everyone. With a
    /// history cap (`--max-history`) the default is 1/`peerShareOfHistoryCap`
    /// of the cap if that is less; the user's own messages never count.
    public static let storedBytesPerPeer = 64 * 1024 * 1024
    public static let peerShareOfHistoryCap = 8
    /// An unacknowledged DM is sent again after this, then after twice as
    /// long each time, up to `outboxMaxRetry` (and at once when its peer
    /// links up again).
    public static let outboxFirstRetry = Duration.seconds(1)
    public static let outboxMaxRetry = Duration.seconds(30)

    public static let documentedRows: [LimitRow] = [
        LimitRow("maxMessageCharacters", maxMessageCharacters, "characters", "one message's text, as grapheme clusters"),
        LimitRow("maxMessageBytes", maxMessageBytes, "bytes", "one message's text as UTF-8"),
        LimitRow("roomCapacity", roomCapacity, "messages", "each room's in-memory buffer (the store keeps all)"),
        LimitRow("maxNameCharacters", maxNameCharacters, "characters", "a nickname or stage name"),
        LimitRow("maxNameBytes", maxNameBytes, "bytes", "a nickname or stage name as UTF-8"),
        LimitRow("recentIDMemory", recentIDMemory, "ids", "message ids each room remembers to drop duplicates"),
        LimitRow("maxFrameBytes", maxFrameBytes, "bytes", "one frame's JSON (on a link, a record holds at most 65519)"),
        LimitRow("storedBytesPerPeer", storedBytesPerPeer, "bytes", "stored messages one other peer authored (no history cap)"),
        LimitRow("peerShareOfHistoryCap", peerShareOfHistoryCap, "1/n", "each peer's default share of a `--max-history` cap"),
        LimitRow("outboxFirstRetry", outboxFirstRetry, "an unacknowledged DM's first retry; doubles per attempt"),
        LimitRow("outboxMaxRetry", outboxMaxRetry, "the longest wait between a DM's retries"),
    ]
}

/// Why a message text was refused. Shown to the person who typed it.
public enum TextValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(characters: Int, limit: Int)
    case tooManyBytes(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .empty:
            "message is empty"
        case .tooLong(let characters, let limit):
            "message is \(characters) characters long; the limit is \(limit)"
        case .tooManyBytes(let bytes, let limit):
            "message is \(bytes) bytes of UTF-8; the limit is \(limit)"
        }
    }
}

/// The 240-character rule, applied the same way on send and on receive.
public enum MessageText {
    /// Returns `text` trimmed of surrounding whitespace and newlines, or
    /// throws if the trimmed text is empty or over the limits.
    public static func validated(_ text: String) throws(TextValidationError) -> String {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { throw .empty }
        // utf8.count is O(1) for native strings; check it before the O(n)
        // grapheme count so a huge input costs nothing.
        let bytes = trimmed.utf8.count
        if bytes > ChatLimits.maxMessageBytes {
            throw .tooManyBytes(bytes: bytes, limit: ChatLimits.maxMessageBytes)
        }
        let characters = trimmed.count
        if characters > ChatLimits.maxMessageCharacters {
            throw .tooLong(characters: characters, limit: ChatLimits.maxMessageCharacters)
        }
        return trimmed
    }
}

extension String {
    /// The string without leading and trailing whitespace or newlines
    /// (Unicode properties, so ideographic spaces count too).
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        // Nothing to trim (the common case): no copy.
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return self }
        return String(scalars[first...last])
    }
}
