import ChatScreen
import Testing

@Suite struct KeyDecoderTests {
    @Test func sequences() {
        var decoder = KeyDecoder()
        let bytes: [UInt8] = Array("\u{1B}[A\u{1B}[B\u{1B}[5~\u{1B}[6~\u{1B}OH\u{1B}[F\u{1B}[Z\t\r\u{7F}\u{03}\u{04}\u{0E}\u{10}".utf8)
        #expect(decoder.decode(bytes) == [
            .up, .down, .pageUp, .pageDown, .home, .end, .backTab, .tab, .enter, .backspace,
            .control("c"), .control("d"), .control("n"), .control("p"),
        ])
    }

    @Test func textAndKoreanSplitAcrossReads() {
        var decoder = KeyDecoder()
        let bytes = Array("hi 안녕".utf8)
        var keys: [ScreenKey] = []
        for byte in bytes { keys += decoder.decode([byte]) }
        let text = keys.map { if case .text(let t) = $0 { t } else { "?" } }.joined()
        #expect(text == "hi 안녕")
    }

    @Test func escapeSequenceSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(Array("[".utf8)) == [])
        #expect(decoder.decode(Array("5~x".utf8)) == [.pageUp, .text("x")])
    }

    @Test func loneEscapeIsEscapeOnFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(decoder.decode(Array("a".utf8)) == [.text("a")])
    }

    /// A stray continuation byte, an invalid lead, a lead cut off by a
    /// plain byte or an overlong form is dropped alone: no U+FFFD, and the
    /// text after it survives.
    @Test func invalidUTF8IsDroppedWithoutEatingGoodText() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x80, 0x61]) == [.text("a")])
        #expect(decoder.decode([0xFF, 0x6F, 0x6B]) == [.text("ok")])
        #expect(decoder.decode([0xE2, 0x82, 0x41]) == [.text("A")], "a sequence cut off by a plain byte")
        #expect(decoder.decode([0xC0, 0xAF, 0x62]) == [.text("b")], "an overlong '/' is not text")
        #expect(decoder.decode([0xED, 0xA0, 0x80, 0x63]) == [.text("c")], "a surrogate is not text")
        #expect(decoder.decode(Array("한".utf8)) == [.text("한")])
    }

    @Test func unknownSequencesAreDropped() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[299~ok\u{1B}[99;5Xz\u{1B}[Mabc!".utf8)) == [.text("ok"), .text("z"), .text("!")])
    }
}
