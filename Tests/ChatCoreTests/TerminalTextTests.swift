import ChatCore
import Testing

/// Peer text reaches terminals only through `TerminalText.sanitize`.
@Suite struct TerminalTextTests {
    static let esc = "\u{1B}"

    @Test(arguments: [
        // CSI: colours, cursor moves, erase, private modes.
        ("\u{1B}[31mred\u{1B}[0m", "red"),
        ("\u{1B}[1;38;5;196mbold\u{1B}[m!", "bold!"),
        ("a\u{1B}[2Jb", "ab"),
        ("\u{1B}[10;20Hmoved", "moved"),
        ("up\u{1B}[3Aup", "upup"),
        ("\u{1B}[?25lhidden cursor\u{1B}[?25h", "hidden cursor"),
        ("\u{1B}[38:2:255:0:0mrgb", "rgb"),
        // C1 CSI (U+009B) as one character.
        ("\u{9B}31mred\u{9B}0m", "red"),
        // OSC: window title, hyperlinks; BEL or ST (ESC \ or U+009C) ends it.
        ("\u{1B}]0;pwned\u{07}text", "text"),
        ("\u{1B}]2;pwned\u{1B}\\text", "text"),
        ("\u{1B}]8;;http://evil.example\u{1B}\\link\u{1B}]8;;\u{1B}\\", "link"),
        ("\u{1B}]0;title\u{9C}after", "after"),
        ("\u{9D}0;c1 osc\u{07}after", "after"),
        // DCS, SOS, PM, APC.
        ("\u{1B}Pq#0;2;0;0;0\u{1B}\\after", "after"),
        ("\u{90}1$r\u{9C}after", "after"),
        ("\u{1B}Xsos\u{1B}\\a\u{1B}^pm\u{1B}\\b\u{1B}_apc\u{1B}\\c", "abc"),
        // Short escapes: reset, charset, keypad, index.
        ("\u{1B}cfresh", "fresh"),
        ("\u{1B}(Bascii", "ascii"),
        ("\u{1B}=keypad\u{1B}>", "keypad"),
        ("\u{1B}Dindex", "index"),
        // Lone or unterminated sequences at the end.
        ("end\u{1B}", "end"),
        ("end\u{1B}[", "end"),
        ("end\u{1B}[31", "end"),
        ("end\u{1B}]0;never terminated", "end"),
        ("end\u{9B}", "end"),
    ])
    func escapeSequencesAreRemovedWhole(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }

    @Test(arguments: [
        ("ding\u{07}", "ding"),
        ("back\u{08}\u{08}space", "backspace"),
        ("nul\u{0}byte", "nulbyte"),
        ("del\u{7F}ete", "delete"),
        ("vt\u{0B}ff\u{0C}", "vtff"),
        ("c1\u{85}\u{84}\u{9A}", "c1"),
        ("shift\u{0E}out\u{0F}in", "shiftoutin"),
    ])
    func otherControlCharactersAreDropped(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }

    @Test(arguments: [
        ("line one\nline two", "line one line two"),
        ("a\rb", "a b"),
        ("tab\there", "tab here"),
        ("crlf\r\nend", "crlf  end"),
    ])
    func lineBreaksAndTabsBecomeSpaces(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }

    @Test(arguments: [
        ("\u{202E}txt.exe", "txt.exe"),  // right-to-left override
        ("a\u{202A}b\u{202B}c\u{202C}d\u{202D}e", "abcde"),
        ("\u{2066}iso\u{2067}late\u{2068}s\u{2069}", "isolates"),
        ("mark\u{200E}\u{200F}\u{061C}s", "marks"),
    ])
    func bidiControlsAreRemoved(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }

    @Test(arguments: [
        "안녕하세요, 세계!",
        "\u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}",  // decomposed 한글
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} family, \u{1F44D}\u{1F3FD}, \u{1F1F0}\u{1F1F7}",
        "plain ASCII with [brackets] and ~tildes~ and \\backslashes\\",
        "e\u{301} caf\u{E9} \u{3000}wide space",
        "עברית and العربية without override marks",
        "",
    ])
    func ordinaryTextIsUntouched(text: String) {
        #expect(TerminalText.sanitize(text) == text)
    }

    @Test func sanitizedOutputHasNoControlCharacters() {
        // A grab bag of everything, byte by byte: nothing below 0x20, no
        // DEL, no C1, no ESC survives.
        var input = ""
        for value in 0...0x9F as ClosedRange<UInt32> { input.unicodeScalars.append(Unicode.Scalar(value)!) }
        input += "\u{1B}[31m\u{1B}]0;x\u{07}\u{202E}"
        let output = TerminalText.sanitize(input)
        #expect(!output.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!output.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) })
    }

    @Test func textAroundSequencesIsKept() {
        let input = "hi \(Self.esc)[1mthere\(Self.esc)[0m, \(Self.esc)]0;t\u{07}how are you?"
        #expect(TerminalText.sanitize(input) == "hi there, how are you?")
    }
}
