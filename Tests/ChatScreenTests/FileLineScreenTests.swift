import ChatCore
import ChatScreen
import Testing

/// File transfers in the full-screen client: lines in their DM
/// conversation, Alt-Y / Alt-N on the newest offer, Tab on a path.
@Suite struct FileLineScreenTests {
    typealias Editing = InputEditingTests
    static let bobRoom = RoomID.direct(ScreenFixture.bob)
    static let offerID = "01934c04-c00a-7a00-9b00-000000000010"

    static func inBob(width: Int = 80, height: Int = 24) -> ScreenState {
        var state = Editing.opened(width: width, height: height)
        state.feed(.opened(ScreenFixture.page(1...3, room: bobRoom, before: false, after: false, marker: 3), title: "bob"))
        return state
    }

    @Test func anOfferAndItsProgressAreLinesOfTheConversation() {
        var state = Self.inBob()
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "bob offers report.pdf (5 bytes)", pendingOffer: true)))
        var rows = ScreenFixture.roomLines(state)
        let offerRow = rows.firstIndex { $0.contains("bob offers report.pdf") }
        #expect(offerRow == state.messageRows + 1, "under the messages, above the status line")
        #expect(rows.contains { $0.contains("message 3") }, "the messages still show")
        // Progress replaces the line of the same transfer.
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "report.pdf [#####     ] of 5 bytes", pendingOffer: false)))
        rows = ScreenFixture.roomLines(state)
        #expect(!rows.contains { $0.contains("offers") })
        #expect(rows.filter { $0.contains("report.pdf [#####") }.count == 1)
        #expect(state.fileLines[Self.bobRoom]?.count == 1)
        // Another conversation does not show bob's files.
        state.feed(.opened(ScreenFixture.page(1...2, before: false, after: false, marker: 2), title: "public"))
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("report.pdf") })
        #expect(state.fileRows == 0)
    }

    /// A panel (`/files`, `/help`) or the search list covers the messages,
    /// not the offer under them: the offer still waits for an answer.
    @Test func anOfferStaysInViewUnderAPanel() {
        var state = Self.inBob()
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "bob offers report.pdf (5 bytes)", pendingOffer: true)))
        state.feed(.panel(["#00000010 ← bob report.pdf 0 bytes/5 bytes offered"]))
        let rows = ScreenFixture.roomLines(state)
        #expect(rows[state.messageRows + 1].contains("bob offers report.pdf"), "\(rows.joined(separator: "\n"))")
        #expect(!rows.contains { $0.contains("message 3") }, "the panel covers the messages")
    }

    /// What the console says for an offer (ConsoleRenderer.fileNotice).
    static func offerText(name: String = "quarterly-report-final.pdf") -> String {
        "bob offers \(name) (5.0 MiB): /accept-file 00000010 or /decline-file 00000010"
    }

    /// The file rows under the messages (between them and the status
    /// line), without the room's blank first column and the two-cell
    /// lead (mark or indent).
    static func fileRows(_ state: ScreenState) -> [String] {
        let rows = ScreenFixture.roomLines(state)[(state.messageRows + 1)..<(state.height - 2)]
        return rows.map { String($0.dropFirst(3)) }
    }

    /// A narrow conversation wraps a file line like message text: every
    /// word shows, in order, and the commands an offer names are whole
    /// (at 100 columns "/decline-file" once lost its end).
    @Test(arguments: [60, 100])
    func anOfferWrapsAndLosesNothing(width: Int) {
        var state = Self.inBob(width: width)
        let text = Self.offerText()
        #expect(DisplayWidth.of(text) > state.roomWidth - 3, "the test needs a line wider than the room")
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: text, pendingOffer: true)))
        let rows = Self.fileRows(state)
        #expect(rows.count == state.fileRows)
        #expect(rows.count >= 2, "wrapped, not cut")
        #expect(rows.joined(separator: " ") == text, "every word, in order")
        #expect(rows.contains { $0.split(separator: " ").contains("/decline-file") })
        #expect(rows.allSatisfy { DisplayWidth.of($0) <= state.roomWidth - 3 })
        #expect(ScreenFixture.roomLines(state)[state.messageRows + 1].hasPrefix(" ⇣ bob offers"))
        #expect(ScreenFixture.roomLines(state)[state.messageRows + 2].hasPrefix("   "), "continued under the text")
        #expect(ScreenFixture.roomLines(state).contains { $0.contains("message 3") }, "the messages still show")
        #expect(ScreenFixture.lines(state)[state.height - 2].contains("alice"), "the status line is where it was")
    }

    /// A line too tall for its rows (a 200-character name at 60 columns)
    /// loses the middle of its name: its start and its end still show.
    @Test func aVeryLongOfferKeepsItsEnd() {
        var state = Self.inBob(width: 60)
        let text = Self.offerText(name: String(repeating: "long-name-", count: 20) + ".pdf")
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: text, pendingOffer: true)))
        let rows = Self.fileRows(state)
        #expect(rows.count == 6, "six rows at most on a 24-row terminal")
        let shown = rows.joined(separator: " ")
        #expect(shown.hasPrefix("bob offers long-name-"))
        #expect(shown.contains("…"), "what was left out is marked")
        #expect(shown.hasSuffix("(5.0 MiB): /accept-file 00000010 or /decline-file 00000010"))
        #expect(state.messageRows >= 12)
    }

    /// Wrapped lines share the rows: older ones give way to the newest.
    @Test func olderLinesGiveWayToTheNewest() {
        var state = Self.inBob(width: 60)
        for n in 1...3 {
            let id = "01934c04-c00a-7a00-9b00-00000000002\(n)"
            state.feed(.fileLine(Self.bobRoom, FileLine(id: id, text: Self.offerText(name: "quarterly-report-\(n).pdf"), pendingOffer: true)))
        }
        #expect(state.fileRows == 6)
        let rows = Self.fileRows(state).joined(separator: " ")
        #expect(!rows.contains("report-1"), "the oldest went (it stays in /files)")
        #expect(rows == Self.offerText(name: "quarterly-report-2.pdf") + " " + Self.offerText(name: "quarterly-report-3.pdf"))
        // A short terminal keeps three rows for files: the newest only.
        state.feed(.resize(width: 60, height: 12))
        #expect(state.fileRows == 3)
        #expect(Self.fileRows(state).joined(separator: " ") == Self.offerText(name: "quarterly-report-3.pdf"))
    }

    @Test func escapesInAFileLineAreNeverDrawn() {
        var state = Self.inBob()
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "evil\u{1B}[2Jname", pendingOffer: true)))
        #expect(!ScreenFixture.roomLines(state).joined().contains("\u{1B}"))
    }

    @Test func altYAndAltNAnswerTheNewestWaitingOffer() {
        var state = Self.inBob()
        #expect(state.feed(.key(.alt(.text("y")))).isEmpty)
        #expect(state.notice?.contains("no file offer") == true)
        let older = "01934c04-c00a-7a00-9b00-000000000001"
        state.feed(.fileLine(Self.bobRoom, FileLine(id: older, text: "bob offers a", pendingOffer: true)),
                   .fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "bob offers b", pendingOffer: true)))
        #expect(state.feed(.key(.alt(.text("y")))) == [.command("/accept-file \(Self.offerID)")])
        #expect(state.feed(.key(.alt(.text("n")))) == [.command("/decline-file \(Self.offerID)")])
        // Answered (the line is no longer an offer): the older one is next.
        state.feed(.fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "declined", pendingOffer: false)))
        #expect(state.feed(.key(.alt(.text("n")))) == [.command("/decline-file \(older)")])
        #expect(KeyLegend.lines.contains { $0.contains("Alt-Y/N") })
    }

    /// The file commands complete with Tab, and so do their ids: the
    /// offers waiting in the open conversation, newest first (every
    /// transfer of it for /cancel-file).
    @Test func tabCompletesTheFileCommandsAndTheirIDs() {
        var state = Self.inBob()
        Editing.press(&state, .text("/decl"), .tab)
        #expect(state.input.text == "/decline ")
        Editing.press(&state, .tab)
        #expect(state.input.text == "/decline-file ")
        Editing.press(&state, .control("u"), .text("/fi"), .tab)
        #expect(state.input.text == "/files ")
        Editing.press(&state, .control("u"), .text("/canc"), .tab)
        #expect(state.input.text == "/cancel-file ")
        Editing.press(&state, .control("u"), .text("/sen"), .tab)
        #expect(state.input.text == "/send ")
        let older = "01934c04-c00a-7a00-9b00-0000000000a1", done = "01934c04-c00a-7a00-9b00-0000000000b2"
        state.feed(.fileLine(Self.bobRoom, FileLine(id: older, text: "bob offers a", pendingOffer: true)),
                   .fileLine(Self.bobRoom, FileLine(id: done, text: "saved b", pendingOffer: false)),
                   .fileLine(Self.bobRoom, FileLine(id: Self.offerID, text: "bob offers c", pendingOffer: true)))
        Editing.press(&state, .control("u"), .text("/accept-file "), .tab)
        #expect(state.input.text == "/accept-file 00000010 ")
        Editing.press(&state, .tab)
        #expect(state.input.text == "/accept-file 000000a1 ", "the older offer next; never the finished one")
        Editing.press(&state, .tab)
        #expect(state.input.text == "/accept-file 00000010 ")
        Editing.press(&state, .control("u"), .text("/cancel-file 000000b"), .tab)
        #expect(state.input.text == "/cancel-file 000000b2 ")
    }

    @Test func tabCompletesThePathOfSend() {
        var state = Self.inBob()
        state.listPaths = { word in ["docs/", "report.pdf", "readme.txt"].filter { $0.hasPrefix(word) } }
        Editing.press(&state, .text("/send bob rep"), .tab)
        #expect(state.input.text == "/send bob report.pdf ")
        Editing.press(&state, .control("u"), .text("/send bob do"), .tab)
        #expect(state.input.text == "/send bob docs/", "a directory goes on being typed into")
        // The name is still a name, not a path.
        Editing.press(&state, .control("u"), .text("/send re"), .tab)
        #expect(state.input.text != "/send report.pdf ")
    }
}
