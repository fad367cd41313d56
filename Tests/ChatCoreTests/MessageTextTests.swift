import ChatCore
import Testing

/// The 240-character rule and the 8 KiB cap behind it, and the name rule.
@Suite struct MessageTextTests {
    static let precomposedHan = "\u{D55C}"  // 한 as one scalar
    static let decomposedHan = "\u{1112}\u{1161}\u{11AB}"  // 한 as three conjoining jamo

    /// One grapheme cluster each, whatever its scalar count.
    static let singleCharacters: [(name: String, text: String)] = [
        ("ascii", "a"),
        ("precomposed Hangul", precomposedHan),
        ("decomposed Hangul jamo", decomposedHan),
        ("thumbs up, medium skin tone", "\u{1F44D}\u{1F3FD}"),
        ("ZWJ family of four", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"),
        ("flag of Korea", "\u{1F1F0}\u{1F1F7}"),
        ("rainbow flag (ZWJ + VS16)", "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}"),
        ("e with combining acute", "e\u{301}"),
    ]

    @Test(arguments: singleCharacters)
    func countsAsOneCharacter(name: String, text: String) throws {
        #expect(text.count == 1, "fixture \(name) must be one grapheme")
        for length in [1, 239, 240] {
            let message = String(repeating: text, count: length)
            #expect(try MessageText.validated(message) == message, "\(length) × \(name)")
        }
        #expect(throws: TextValidationError.tooLong(characters: 241, limit: 240)) {
            try MessageText.validated(String(repeating: text, count: 241))
        }
    }

    @Test(arguments: [
        (239, true), (240, true), (241, false), (1000, false),
    ])
    func asciiLengthEdge(length: Int, accepted: Bool) throws {
        let text = String(repeating: "x", count: length)
        if accepted {
            #expect(try MessageText.validated(text) == text)
        } else {
            #expect(throws: TextValidationError.tooLong(characters: length, limit: ChatLimits.maxMessageCharacters)) {
                try MessageText.validated(text)
            }
        }
    }

    @Test func limitsAreTheProductNumbers() {
        #expect(ChatLimits.maxMessageCharacters == 240)
        #expect(ChatLimits.maxMessageBytes == 8192)
        #expect(ChatLimits.roomCapacity == 100)
        #expect(ChatLimits.maxNameCharacters == 32)
    }

    @Test func koreanSentenceMixedWithEmojiCountsGraphemes() throws {
        // 5 syllables + space + 2 emoji = 8 characters, 30 times = 240.
        let unit = "안녕하세요 \u{1F44B}\u{1F3FB}\u{1F1F0}\u{1F1F7}"
        #expect(unit.count == 8)
        let text = String(repeating: unit, count: 30)
        #expect(try MessageText.validated(text) == text)
        #expect(throws: TextValidationError.tooLong(characters: 241, limit: 240)) {
            try MessageText.validated(text + "!")
        }
    }

    @Test(arguments: [
        "", " ", "   ", "\t", "\n", "\r\n", "\n\n\n", " \t\r\n ",
        "\u{3000}",  // ideographic space
        "\u{3000}\u{3000}\n",
        "\u{00A0}",  // no-break space
        "\u{2028}",  // line separator
        "\u{0085}",  // next line
    ])
    func whitespaceOnlyIsEmpty(text: String) {
        #expect(throws: TextValidationError.empty) { try MessageText.validated(text) }
    }

    @Test(arguments: [
        ("  hello  ", "hello"),
        ("\n\nhello\n", "hello"),
        ("\u{3000}안녕\u{3000}", "안녕"),
        ("\t a  b \t", "a  b"),
        ("line one\nline two", "line one\nline two"),
        ("  inner\u{3000}space  ", "inner\u{3000}space"),
    ])
    func trimsSurroundingWhitespaceOnly(input: String, expected: String) throws {
        #expect(try MessageText.validated(input) == expected)
    }

    @Test func surroundingWhitespaceDoesNotCountTowardTheLimit() throws {
        let body = String(repeating: "가", count: 240)
        #expect(try MessageText.validated("   \n" + body + "\u{3000}\n") == body)
    }

    @Test func innerWhitespaceCounts() {
        let text = String(repeating: "a", count: 120) + " " + String(repeating: "b", count: 120)
        #expect(throws: TextValidationError.tooLong(characters: 241, limit: 240)) {
            try MessageText.validated(text)
        }
    }

    /// 240 grapheme clusters but far more than 8 KiB: each cluster is a base
    /// letter under 40 combining marks.
    @Test func hugeCombiningClustersAreRefusedByBytes() throws {
        let cluster = "e" + String(repeating: "\u{301}", count: 40)
        #expect(cluster.count == 1 && cluster.utf8.count == 81)
        let text = String(repeating: cluster, count: 240)
        #expect(text.count == 240)
        #expect(throws: TextValidationError.tooManyBytes(bytes: 240 * 81, limit: 8192)) {
            try MessageText.validated(text)
        }
    }

    @Test(arguments: [(8192, true), (8193, false)])
    func byteCapEdge(bytes: Int, accepted: Bool) throws {
        // 239 ASCII letters and one cluster holding the remaining bytes:
        // "e", then 2-byte U+0301 marks and at most one 3-byte U+20D0.
        let remaining = bytes - 239 - 1
        let threeByteMarks = remaining % 2
        let twoByteMarks = (remaining - 3 * threeByteMarks) / 2
        let text = String(repeating: "x", count: 239) + "e"
            + String(repeating: "\u{301}", count: twoByteMarks) + String(repeating: "\u{20D0}", count: threeByteMarks)
        try #require(text.utf8.count == bytes)
        try #require(text.count == 240)
        if accepted {
            #expect(try MessageText.validated(text) == text)
        } else {
            #expect(throws: TextValidationError.tooManyBytes(bytes: bytes, limit: 8192)) {
                try MessageText.validated(text)
            }
        }
    }

    @Test func familyEmojiAtTheLimitFitTheByteCap() throws {
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        let text = String(repeating: family, count: 240)
        #expect(try MessageText.validated(text) == text)
    }

    @Test func errorsDescribeTheRule() {
        #expect(TextValidationError.empty.description == "message is empty")
        #expect(TextValidationError.tooLong(characters: 241, limit: 240).description.contains("241"))
        #expect(ChatError.invalidText(.tooLong(characters: 241, limit: 240)).description.contains("240"))
    }
}

@Suite struct NodeNameTests {
    @Test(arguments: [
        ("alice", "alice"),
        ("  bob  ", "bob"),
        ("김철수", "김철수"),
        ("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} fam", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} fam"),
        (String(repeating: "n", count: 32), String(repeating: "n", count: 32)),
        (String(repeating: "한", count: 32), String(repeating: "한", count: 32)),
        ("\n" + String(repeating: "n", count: 32) + "\n", String(repeating: "n", count: 32)),
    ])
    func accepted(input: String, expected: String) throws {
        #expect(try NodeName.validated(input) == expected)
    }

    @Test(arguments: ["", " ", "\n\t", "\u{3000}"])
    func emptyRefused(input: String) {
        #expect(throws: NameValidationError.empty) { try NodeName.validated(input) }
    }

    @Test(arguments: [33, 42])  // 42 syllables are 126 bytes: the character limit speaks first
    func tooLongRefused(length: Int) {
        #expect(throws: NameValidationError.tooLong(characters: length, limit: 32)) {
            try NodeName.validated(String(repeating: "한", count: length))
        }
    }

    @Test(arguments: [
        "a\u{0}b", "a\u{7}b", "a\u{8}b", "\u{1B}[31mred", "a\tb", "a\nb", "a\rb", "a\u{7F}b", "a\u{9B}b", "a\u{85}b",
    ])
    func controlCharactersRefused(input: String) {
        #expect(throws: NameValidationError.controlCharacters) { try NodeName.validated(input) }
    }
}

@Suite struct NodeNameByteLimitTests {
    @Test func stackedCombiningMarksAreRefusedByBytes() {
        let heavy = String(repeating: "e" + String(repeating: "\u{0301}", count: 20), count: 4)  // 4 characters, 164 bytes
        #expect(heavy.count == 4)
        #expect(throws: NameValidationError.tooManyBytes(bytes: heavy.utf8.count, limit: 128)) { try NodeName.validated(heavy) }
    }

    @Test func thirtyTwoKoreanSyllablesFit() throws {
        let name = String(repeating: "한", count: 32)  // 96 bytes
        #expect(try NodeName.validated(name) == name)
    }
}
