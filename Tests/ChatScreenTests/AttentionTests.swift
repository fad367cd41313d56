import ChatCore
import ChatScreen
import Foundation
import Testing

/// Issue 27, attention: a DM or a message naming the reader is highlighted,
/// rings the bell (unless turned off) and counts in the terminal title; the
/// side list marks such rooms apart from plain unread.
@Suite struct AttentionTests {
    @Test func theNameAsAWordInAnyCase() {
        #expect(AttentionRule.names("alice: lunch?", "alice"))
        #expect(AttentionRule.names("hi ALICE!", "alice"))
        #expect(AttentionRule.names("@Alice look", "alice"))
        #expect(AttentionRule.names("앨리스 안녕", "앨리스"))
        #expect(!AttentionRule.names("malice aforethought", "alice"))
        #expect(!AttentionRule.names("alice_bot says hi", "alice"))
        #expect(!AttentionRule.names("alices", "alice"))
        #expect(!AttentionRule.names("al", "alice"))
        #expect(!AttentionRule.names("anything", ""))
    }

    @Test func dmsAndMentionsFromOthersOnly() {
        let me = ScreenFixture.me
        let dm = ScreenFixture.message(1, room: .direct(ScreenFixture.bob), text: "psst")
        let mention = ScreenFixture.message(2, text: "ask alice")
        let plain = ScreenFixture.message(3, text: "hello all")
        let mine = ScreenFixture.message(4, from: me, text: "I am alice")
        #expect(AttentionRule.wants(dm, me: me, myName: "alice"))
        #expect(AttentionRule.wants(mention, me: me, myName: "alice"))
        #expect(!AttentionRule.wants(plain, me: me, myName: "alice"))
        #expect(!AttentionRule.wants(mine, me: me, myName: "alice"))
    }

    static func openPublic(width: Int = 80) -> ScreenState {
        var state = ScreenFixture().state(width: width)
        state.feed(
            .rooms([RoomEntry(room: .publicRoom, title: "public"), RoomEntry(room: .direct(ScreenFixture.bob), title: "bob")]),
            .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        return state
    }

    @Test func aMentionIsHighlightedRingsAndCounts() {
        var state = Self.openPublic()
        let effects = state.feed(.message(ScreenFixture.message(4, text: "alice, are you there?"), name: "bob"))
        #expect(effects.contains(.ring))
        let grid = ScreenRenderer.render(state).grid
        let row = state.height - 3  // the last message row
        let nameColumn = state.roomColumn + 6
        #expect(ScreenFixture.roomLines(state)[row].hasSuffix("bob: alice, are you there?"))
        #expect(grid[row, nameColumn].style.background == .yellow, "the name is highlighted")
        #expect(state.terminalTitle == "(1) lanchat · alice")
        // A plain message neither rings nor is highlighted.
        let plain = state.feed(.message(ScreenFixture.message(5, text: "never mind"), name: "bob"))
        #expect(!plain.contains(.ring))
        #expect(ScreenRenderer.render(state).grid[row, nameColumn].style.background != .yellow)
        // Read: the count goes.
        var eye = Eye(now: .seconds(5))
        _ = eye.look(&state)
        #expect(state.terminalTitle == "lanchat · alice")
    }

    @Test func aDMInAnotherRoomMarksTheListApartFromPlainUnread() {
        var state = Self.openPublic()
        state.feed(.message(ScreenFixture.message(9, room: .publicRoom, from: ScreenFixture.carol, text: "plain"), name: "carol"))
        state.feed(.key(.pageUp))  // scrolled back: the public message stays unread
        let effects = state.feed(.message(ScreenFixture.message(10, room: .direct(ScreenFixture.bob), text: "psst"), name: "bob"))
        #expect(effects.contains(.ring))
        let side = ScreenFixture.sideLines(state)
        let bob = side.firstIndex { $0.contains("bob") }!
        let grid = ScreenRenderer.render(state).grid
        #expect(side[bob].hasSuffix("!1"))
        #expect(grid[bob, state.sideWidth - 2].style.background == .yellow)
        let publicRow = side.firstIndex { $0.contains("# public") }!
        #expect(side[publicRow].hasSuffix(" 1") && !side[publicRow].contains("!"))
        #expect(grid[publicRow, state.sideWidth - 2].style.background == .red)
        #expect(state.terminalTitle == "(1) lanchat · alice")
    }

    @Test func noBellWhenTurnedOff() {
        var state = Self.openPublic()
        state.bell = false
        let effects = state.feed(.message(ScreenFixture.message(10, room: .direct(ScreenFixture.bob), text: "psst"), name: "bob"))
        #expect(!effects.contains(.ring))
        #expect(state.terminalTitle == "(1) lanchat · alice", "still counted")
    }
}

/// A mention already in the store counts once a page holding it is loaded.
@Suite struct StoredMentionTests {
    @Test func anUnreadStoredMentionCountsUntilRead() {
        var state = ScreenFixture().state()
        let messages = (1...5).map { ScreenFixture.message($0, text: $0 == 4 ? "thanks alice" : "m\($0)") }
        let page = HistoryPage(room: .publicRoom, messages: messages, hasMoreBefore: false, hasMoreAfter: false,
                               readMarker: messages[1].cursor)
        state.feed(.opened(page, title: "public"))
        #expect(state.terminalTitle == "(1) lanchat · alice")
        // Opened again: counted once, not twice.
        state.feed(.opened(page, title: "public"))
        #expect(state.terminalTitle == "(1) lanchat · alice")
        var eye = Eye()
        _ = eye.look(&state)
        #expect(state.terminalTitle == "lanchat · alice")
    }
}
