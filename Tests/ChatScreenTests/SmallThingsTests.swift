import ChatCore
import ChatScreen
import Foundation
import Testing

/// Issue 27's small things, on the grid: unread by kind on a narrow
/// terminal, the beginning of a conversation, an empty room under a filter.
@Suite struct SmallThingsTests {
    static func rooms() -> ScreenEvent {
        .rooms([
            RoomEntry(room: .publicRoom, title: "public", unread: 12, lastActivity: ScreenFixture.noon),
            RoomEntry(room: .direct(ScreenFixture.bob), title: "bob", unread: 3, lastActivity: ScreenFixture.noon),
            RoomEntry(room: .direct(ScreenFixture.carol), title: "carol", unread: 1, lastActivity: ScreenFixture.noon),
        ])
    }

    @Test func aNarrowTerminalCarriesUnreadByKindOnTheStatusLine() {
        var state = ScreenFixture().state(width: 50, height: 20)
        state.feed(Self.rooms(), .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        #expect(state.sideWidth == 0)
        let status = ScreenFixture.lines(state)[state.height - 2]
        #expect(status.contains("unread #12 @4 !4"), "public 12, DMs 4, of which 4 want attention: '\(status)'")
        // Wide enough for the list: the list has them, the status line not.
        state.feed(.resize(width: 100, height: 20))
        #expect(!ScreenFixture.lines(state)[state.height - 2].contains("unread #"))
        // Only the kinds with unread are named.
        state.feed(.resize(width: 50, height: 20), .unread(.direct(ScreenFixture.bob), 0), .unread(.direct(ScreenFixture.carol), 0))
        #expect(ScreenFixture.lines(state)[state.height - 2].contains("│ unread #12 │"))
        // All read: said in words.
        state.feed(.resize(width: 50, height: 20), .unread(.publicRoom, 0), .unread(.direct(ScreenFixture.bob), 0), .unread(.direct(ScreenFixture.carol), 0))
        #expect(ScreenFixture.lines(state)[state.height - 2].contains("all read"))
    }

    @Test func theBeginningOfTheConversationOnlyWhenTheOldestIsLoaded() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...5, before: true, after: false, marker: 5), title: "public"))
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("beginning of the conversation") })
        state.feed(.opened(ScreenFixture.page(1...5, before: false, after: false, marker: 5), title: "public"))
        let rows = ScreenFixture.roomLines(state)
        let beginning = rows.firstIndex { $0.contains("── beginning of the conversation ──") }
        #expect(beginning.map { rows[$0 + 2].hasSuffix("bob: message 1") } == true, "then the day, then the first message")
    }

    @Test func anEmptyRoomUnderAFilterSaysWhatItHides() {
        var state = ScreenFixture().state()
        state.feed(.key(.text("/filter xyz")), .key(.enter))
        // The session reopens the room under the filter: 5 messages, none from stage xyz.
        state.feed(.opened(ScreenFixture.page(1...5, before: false, after: false, marker: 5), title: "public"))
        let rows = ScreenFixture.roomLines(state)
        #expect(rows[1].contains("filter xyz hides 5 messages"), "'\(rows[1])'")
        #expect(!rows.joined().contains("no messages yet"))
        // A live one it hides too counts.
        state.feed(.message(ScreenFixture.message(6), name: "bob"))
        #expect(ScreenFixture.roomLines(state)[1].contains("hides 6 messages"))
        // Nothing at all: the plain words.
        state.feed(.opened(HistoryPage(room: .publicRoom, messages: [], hasMoreBefore: false, hasMoreAfter: false), title: "public"))
        #expect(ScreenFixture.roomLines(state)[1].contains("no messages yet"))
    }
}
