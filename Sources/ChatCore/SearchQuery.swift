/// What `/search` looks for: one literal piece of text, found anywhere in
/// a message (a substring), Latin letters in either case.
///
/// Literal on purpose: people type what they remember of a line, and a
/// quote, an asterisk or the word NEAR are text to find, never syntax.
/// `ftsTrigrams` quotes each piece for SQLite's FTS5, the only escaping
/// FTS5 has (a double quote is doubled inside a quoted string).
public struct SearchQuery: Hashable, Sendable, CustomStringConvertible {
    /// The text to find, trimmed of surrounding whitespace.
    public let text: String

    /// Results on one page of `/search` unless asked otherwise.
    public static let defaultLimit = 50
    /// The shortest text the trigram index can look up: it indexes every
    /// run of three Unicode scalars, so shorter text takes the scan path.
    public static let indexedScalars = 3

    /// Refuses empty text, and text longer than any message can hold
    /// (nothing could match it).
    public init(_ raw: String) throws(ChatError) {
        let trimmed = raw.trimmingWhitespace()
        if trimmed.isEmpty { throw .invalidSearch(reason: "nothing to search for: /search WORDS") }
        if trimmed.utf8.count > ChatLimits.maxMessageBytes || trimmed.count > ChatLimits.maxMessageCharacters {
            throw .invalidSearch(reason: "search text is longer than a message can be (\(ChatLimits.maxMessageCharacters) characters)")
        }
        // SQLite reads a MATCH string up to its first NUL, which would end
        // the quoted phrase early: refused here rather than half-searched.
        if trimmed.unicodeScalars.contains("\u{0}") { throw .invalidSearch(reason: "search text contains a NUL character") }
        text = trimmed
    }

    /// Whether the trigram index can answer this query (3 or more scalars).
    public var usesIndex: Bool { text.unicodeScalars.count >= Self.indexedScalars }

    /// An FTS5 query for rows holding every trigram (three Unicode scalars)
    /// of the text: `"hel" AND "ell" AND "llo"`. The index keeps no
    /// positions (`detail=none`, see Schema+Search.swift), so it finds the
    /// candidates and the store checks the text itself holds the substring.
    public var ftsTrigrams: String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= Self.indexedScalars else { return "" }
        var seen = Set<String>()
        var terms: [String] = []
        for start in 0...(scalars.count - Self.indexedScalars) {
            var trigram = ""
            trigram.unicodeScalars.append(contentsOf: scalars[start..<(start + Self.indexedScalars)])
            guard seen.insert(trigram).inserted else { continue }
            terms.append("\"" + trigram.replacingAll("\"", with: "\"\"") + "\"")
        }
        return terms.joined(separator: " AND ")
    }

    /// The text with every capital made small, scalar by scalar
    /// (`fold(_:)`), for the check on the text itself (both paths): what
    /// the store looks for in each message's folded text.
    public var folded: String {
        String(String.UnicodeScalarView(text.unicodeScalars.map(Self.fold)))
    }

    /// One scalar folded to small letters the way the trigram index folds
    /// case (one scalar to one, so folded text keeps its trigrams): ASCII,
    /// Latin with accents, Greek, Cyrillic, Armenian, Georgian and the rest
    /// that Unicode pairs; a final sigma counts as a sigma. Scripts without
    /// case (Hangul, CJK) pass unchanged.
    ///
    /// Never wider than the index: SQLite's tokenizer folds by Unicode 6.1's
    /// table and leaves İ alone, so letters (or small forms) newer than 6.1
    /// (Cherokee's small letters, Georgian Mtavruli, later Latin additions)
    /// and İ stay as they are. Two texts this fold makes equal are then
    /// equal to the index too, and the index path finds what the scan does.
    @inlinable
    public static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value = scalar.value
        if value < 0x80 { return (0x41...0x5A).contains(value) ? Unicode.Scalar(UInt8(value + 0x20)) : scalar }
        if value == 0x3C2 { return "\u{3C3}" }  // ς: the same letter as σ
        // CJK, kana, Yi, Hangul and emoji have no case: no property lookup.
        if (0x3000..<0xA640).contains(value) || (0xAC00..<0xD800).contains(value) || value >= 0x1F000 { return scalar }
        guard value != 0x130, scalar.properties.changesWhenLowercased, isInIndexTable(scalar),
              let small = scalar.properties.lowercaseMapping.unicodeScalars.first, isInIndexTable(small) else { return scalar }
        return small
    }

    /// Assigned by Unicode 6.1, the case table SQLite's FTS5 folds with.
    @inlinable
    static func isInIndexTable(_ scalar: Unicode.Scalar) -> Bool {
        guard let age = scalar.properties.age else { return false }
        return age.major < 6 || (age.major == 6 && age.minor <= 1)
    }

    public var description: String { text }
}

extension String {
    /// Every occurrence of `target` replaced (Foundation-free).
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
