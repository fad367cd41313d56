import ChatCore
import ChatScreen
import Foundation
import Testing

/// `/search` in the full-screen client, on the cell grid: the results list
/// over the room, choosing one, paging on, and the read marker, which a
/// list over the room or a jump past unseen messages never moves.
@Suite struct SearchScreenTests {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func item(_ n: Int, room: RoomID = .publicRoom, text: String? = nil) -> SearchList.Item {
        let message = ScreenFixture.message(n, room: room, text: text ?? "안녕 number \(n)")
        return SearchList.Item(message, roomLabel: room == .publicRoom ? "#public" : "@bob", sender: "bob", calendar: calendar)
    }

    /// An open public room (nothing unread) with a result list over it.
    static func searching(_ count: Int, hasMore: Bool = false) -> (ScreenState, [ScreenEffect]) {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...30, before: false, after: false, marker: 30), title: "public"))
        let effects = state.feed(.searchResults(query: "안녕", items: (0..<count).map { item(100 - $0) }, hasMore: hasMore, first: 1))
        return (state, effects)
    }

    @Test func typedSearchGoesToTheExecutor() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        state.feed(.key(.text("/search 안녕")))
        #expect(state.feed(.key(.enter)) == [.command("/search 안녕")])
    }

    @Test func resultsAreListedOverTheRoomNewestFirstWithTheMatchInBold() throws {
        var (state, effects) = Self.searching(3)
        effects += state.feed(.drawn(at: .zero), .drawn(at: .seconds(1)))
        #expect(effects.isEmpty, "nothing is marked read under the list")
        let rows = ScreenFixture.roomLines(state)
        #expect(rows[1] == " 3 results for \"안녕\", newest first")
        #expect(rows[2] == " 2026-11-23 12:40 #public bob: 안녕 number 100")
        #expect(rows[4].contains("안녕 number 98"))
        #expect(rows[state.messageRows].contains("Enter opens the room there"))
        let grid = ScreenRenderer.render(state).grid
        let column = try #require((0..<grid.width).first { grid[2, $0].character == "안" })
        #expect(grid[2, column].style.bold && grid[2, column].style.reverse, "the selected row, the match bold")
        #expect(!grid[3, column].style.reverse)
    }

    @Test func choosingAResultOpensItsRoomAroundIt() {
        var (state, _) = Self.searching(3)
        state.feed(.key(.down))
        let effects = state.feed(.key(.enter))
        let chosen = ScreenFixture.message(99).cursor
        #expect(effects == [.openAround(.publicRoom, chosen)])
        #expect(state.search == nil && state.lastSearch != nil)
        // The page around message 99 of a longer room: the result near the top.
        let page = ScreenFixture.page(90...119, before: true, after: true, marker: 200)
        let opened = state.feed(.openedAround(page, title: "public", at: chosen))
        let rows = ScreenFixture.roomLines(state)
        #expect(rows[1].hasSuffix("bob: message 97"))
        #expect(rows[3].hasSuffix("bob: message 99"))
        let grid = ScreenRenderer.render(state).grid
        #expect(grid[3, state.roomColumn].style.background == .yellow, "the result is marked")
        #expect(grid[2, state.roomColumn].style.background != .yellow)
        // Nothing unread before the page: what a frame showed is read as usual.
        #expect(!opened.contains { if case .markShown = $0 { true } else { false } })
        let drawn = state.feed(.drawn(at: .zero), .drawn(at: .seconds(1)))
        #expect(drawn.contains { if case .markShown(.publicRoom, let from, _) = $0 { from == ScreenFixture.message(97).cursor } else { false } }, "\(drawn)")
        // Paging works both ways from there.
        var paging: [ScreenEffect] = []
        for _ in 0..<2 { paging += state.feed(.key(.pageUp)) }
        #expect(paging.contains(.loadPage(.publicRoom, .older, from: ScreenFixture.message(90).cursor)))
        // Opening a room the usual way drops the mark.
        state.feed(.opened(page, title: "public"))
        #expect(state.searchHit == nil)
    }

    @Test func aJumpPastUnseenMessagesLeavesTheMarker() {
        var state = ScreenFixture().state()
        let page = ScreenFixture.page(90...119, before: true, after: true, marker: 10)
        var effects = state.feed(.openedAround(page, title: "public", at: ScreenFixture.message(99).cursor))
        effects += state.feed(.drawn(at: .zero), .drawn(at: .seconds(1)))
        #expect(!effects.contains { if case .markShown = $0 { true } else { false } }, "\(effects)")
        #expect(ScreenFixture.roomLines(state)[3].hasSuffix("bob: message 99"))
    }

    @Test func escapeClosesAndCtrlRShowsTheResultsAgain() {
        var (state, _) = Self.searching(3)
        state.feed(.key(.down), .key(.escape))
        #expect(state.search == nil)
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("results for") })
        state.feed(.key(.control("r")))
        #expect(state.search?.selected == 1, "where it was")
        // With no search yet, Ctrl-R starts one on the input line.
        var fresh = ScreenFixture().state()
        fresh.feed(.key(.control("r")))
        #expect(fresh.input.text == "/search ")
        // Typed text is not a key for the list.
        state.feed(.key(.text("x")))
        #expect(state.input.text.isEmpty && state.search != nil)
    }

    @Test func nearTheEndTheNextPageIsAskedForOnceAndAppended() {
        var (state, _) = Self.searching(5, hasMore: true)
        var effects: [ScreenEffect] = []
        for _ in 0..<4 { effects += state.feed(.key(.down)) }
        #expect(effects == [.command("/search")])
        #expect(state.search?.loading == true)
        state.feed(.searchResults(query: "안녕", items: (5..<8).map { Self.item(100 - $0) }, hasMore: false, first: 6))
        #expect(state.search?.items.count == 8)
        #expect(state.search?.selected == 4)
        #expect(state.search?.hasMore == false && state.search?.loading == false)
        // A new search replaces the list.
        state.feed(.searchResults(query: "other", items: [Self.item(1, text: "other")], hasMore: false, first: 1))
        #expect(state.search?.items.count == 1 && state.search?.query == "other")
    }

    @Test func peerTextInResultsIsInertAndOnOneLine() {
        let item = Self.item(1, room: .direct(ScreenFixture.bob), text: "안녕\u{1B}[2J\nsecond line")
        #expect(!item.text.contains("\u{1B}") && !item.text.contains("\n"))
        var state = ScreenFixture().state(width: 50, height: 10)
        state.feed(.searchResults(query: "second", items: [item], hasMore: false, first: 1))
        let row = ScreenFixture.roomLines(state)[2]
        #expect(row.contains("second"), "the match shows even on a narrow screen: \(row)")
    }

    @Test func anEmptyResultSaysSo() {
        var state = ScreenFixture().state()
        state.feed(.searchResults(query: "zzz", items: [], hasMore: false, first: 1))
        #expect(ScreenFixture.roomLines(state)[1] == " no messages contain \"zzz\"")
    }
}
