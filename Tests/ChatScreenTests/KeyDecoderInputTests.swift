import ChatScreen
import Testing

/// The sequences the readline keys, bracketed paste and the mouse arrive as.
@Suite struct KeyDecoderInputTests {
    static func decode(_ text: String) -> [ScreenKey] {
        var decoder = KeyDecoder()
        return decoder.decode(Array(text.utf8))
    }

    @Test func altLettersAndModifiedNavigationKeys() {
        #expect(Self.decode("\u{1B}b\u{1B}f\u{1B}d\u{1B}a\u{1B}1\u{1B}\u{7F}\u{1B}\r") == [
            .alt(.text("b")), .alt(.text("f")), .alt(.text("d")), .alt(.text("a")), .alt(.text("1")), .alt(.backspace), .alt(.enter),
        ])
        #expect(Self.decode("\u{1B}[1;3D\u{1B}[1;3C\u{1B}[1;5D\u{1B}[1;5C\u{1B}[5;3~\u{1B}[6;5~\u{1B}[1;3H\u{1B}[1;5F\u{1B}[1;9A\u{1B}[1;2B") == [
            .alt(.left), .alt(.right), .ctrl(.left), .ctrl(.right), .alt(.pageUp), .ctrl(.pageDown), .alt(.home), .ctrl(.end),
            .alt(.up), .down,
        ])
    }

    @Test func deleteAndFunctionKeys() {
        #expect(Self.decode("\u{1B}[3~\u{1B}OP\u{1B}[11~\u{1B}[15~\u{1B}[24~\u{1B}OA") == [
            .delete, .function(1), .function(1), .function(5), .function(12), .up,
        ])
    }

    @Test func aKoreanAltKeyIsTakenWhole() {
        #expect(Self.decode("\u{1B}한x") == [.alt(.text("한")), .text("x")])
    }

    @Test func bracketedPasteIsOneKeyWithItsLineEnds() {
        #expect(Self.decode("a\u{1B}[200~one\r\ntwo\rthree\u{1B}[Aend\u{1B}[201~b") == [
            .text("a"), .paste("one\ntwo\nthree\u{1B}[Aend"), .text("b"),
        ])
    }

    @Test func bracketedPasteSplitAnywhereAcrossReads() {
        let bytes = Array("\u{1B}[200~안녕\nhi\u{1B}[201~x".utf8)
        for split in 1..<bytes.count {
            var decoder = KeyDecoder()
            let keys = decoder.decode(bytes[..<split]) + decoder.decode(bytes[split...])
            #expect(keys == [.paste("안녕\nhi"), .text("x")], "split at \(split)")
        }
        // One byte at a time too.
        var decoder = KeyDecoder()
        var keys: [ScreenKey] = []
        for byte in bytes { keys += decoder.decode([byte]) }
        #expect(keys == [.paste("안녕\nhi"), .text("x")])
    }

    @Test func aPasteOutlivesAPauseAndAHugeOneIsCapped() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[200~half\r\u{1B}".utf8)) == [])
        #expect(decoder.flush() == [])  // a pause is no end of the paste
        #expect(decoder.decode(Array("[201~".utf8)) == [.paste("half\n")])
        let huge = "\u{1B}[200~" + String(repeating: "x", count: 100_000) + "\u{1B}[201~y"
        let keys = Self.decode(huge)
        #expect(keys.count == 2 && keys.last == .text("y"))
        if case .paste(let text) = keys.first { #expect(text.utf8.count == 16 * 1024) } else { Issue.record("no paste") }
    }

    @Test func sgrMouseReports() {
        #expect(Self.decode("\u{1B}[<0;5;3M\u{1B}[<0;5;3m\u{1B}[<64;40;10M\u{1B}[<65;40;10M\u{1B}[<2;1;1M") == [
            .mouse(MouseEvent(.press(0), row: 2, column: 4)), .mouse(MouseEvent(.release(0), row: 2, column: 4)),
            .mouse(MouseEvent(.wheelUp, row: 9, column: 39)), .mouse(MouseEvent(.wheelDown, row: 9, column: 39)),
            .mouse(MouseEvent(.press(2), row: 0, column: 0)),
        ])
        // Modifier bits keep the meaning; motion and odd buttons are dropped.
        #expect(Self.decode("\u{1B}[<16;2;2M\u{1B}[<32;2;2M\u{1B}[<3;2;2Mz\u{1B}[<0;0;1M") == [.mouse(MouseEvent(.press(0), row: 1, column: 1)), .text("z")])
    }

    @Test func aMouseReportSplitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[<64;1".utf8)) == [])
        #expect(decoder.decode(Array("2;7M".utf8)) == [.mouse(MouseEvent(.wheelUp, row: 6, column: 11))])
    }
}
