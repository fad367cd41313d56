import ChatCore
import ChatScreen
import Testing

/// File transfers in the full-screen client: lines in their DM
/// conversation, Alt-Y / Alt-N on the newest offer, Tab on a path.
@Suite struct FileLineScreenTests {
    typealias Editing = InputEditingTests
    static let bobRoom = RoomID.direct(ScreenFixture.bob)
    static let offerID = "01934c04-c00a-7a00-9b00-000000000010"

    static func inBob() -> ScreenState {
        var state = Editing.opened()
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
