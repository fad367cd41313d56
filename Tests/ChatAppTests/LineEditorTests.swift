@testable import ChatApp
import Testing

/// The console's own line editing, byte by byte as a terminal sends keys.
@Suite struct LineEditorTests {
    static func feed(_ editor: inout LineEditor, _ text: String) -> [LineEditor.Action] {
        Array(text.utf8).map { editor.feed($0) }
    }

    @Test func utf8ArrivesByteByByte() {
        var editor = LineEditor()
        let actions = Self.feed(&editor, "한👍")
        #expect(actions.filter { $0 == .changed }.count == 2, "one change per complete character")
        #expect(editor.text == "한👍")
        #expect(editor.feed(0x0D) == .submit("한👍"))
        #expect(editor.text.isEmpty)
    }

    @Test func backspaceRemovesAWholeCharacter() {
        var editor = LineEditor()
        _ = Self.feed(&editor, "a👍🏽")
        #expect(editor.feed(0x7F) == .changed)
        #expect(editor.text == "a")
        #expect(editor.feed(0x08) == .changed)
        #expect(editor.feed(0x7F) == .none, "nothing left to delete")
    }

    @Test func wordAndLineKills() {
        var editor = LineEditor()
        _ = Self.feed(&editor, "/dm bob hello  ")
        #expect(editor.feed(0x17) == .changed)
        #expect(editor.text == "/dm bob ")
        #expect(editor.feed(0x15) == .changed)
        #expect(editor.text.isEmpty)
    }

    @Test func escapeSequencesAreSwallowed() {
        var editor = LineEditor()
        _ = Self.feed(&editor, "a\u{1B}[A\u{1B}[1;5Cb\u{1B}OPc")
        #expect(editor.text == "abc")
    }

    @Test func controlDEndsOnlyAnEmptyLine() {
        var editor = LineEditor()
        _ = Self.feed(&editor, "x")
        #expect(editor.feed(0x04) == .none)
        _ = editor.feed(0x7F)
        #expect(editor.feed(0x04) == .endOfInput)
        #expect(editor.feed(0x0C) == .redraw)
    }

    @Test func invalidBytesAndControlsAreDropped() {
        var editor = LineEditor()
        #expect(editor.feed(0x80) == .none)
        #expect(editor.feed(0xFF) == .none)
        #expect(editor.feed(0x07) == .none)
        _ = Self.feed(&editor, "ok")
        #expect(editor.text == "ok")
    }

    @Test func lineLengthIsBounded() {
        var editor = LineEditor()
        _ = Self.feed(&editor, String(repeating: "x", count: LineEditor.maxBytes + 10))
        #expect(editor.text.utf8.count == LineEditor.maxBytes)
    }

    /// The console decodes keys as the full screen does (`KeyDecoder`): a
    /// bad byte costs nothing after it, Alt and function keys type nothing.
    @Test func keysAreDecodedAsTheFullScreenDecodesThem() {
        var editor = LineEditor()
        _ = Self.feed(&editor, "a")
        _ = editor.feed(0xFF)
        _ = Self.feed(&editor, "b\u{1B}[15~\u{1B}xc")
        #expect(editor.text == "abc")
    }
}
