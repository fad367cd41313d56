import ChatCore
import ChatScreen
import Foundation
import Testing

/// Issue 27: "reading is what the eye saw, on every path". Messages that
/// arrive by catch-up, live or from the store are placed by one rule, and
/// the read marker moves only over messages a frame drew in full.
@Suite struct CatchUpReadingTests {
    /// The marks a list of effects asks for.
    static func marks(_ effects: [ScreenEffect]) -> [(from: HistoryCursor, upTo: HistoryCursor)] {
        effects.compactMap { if case .markShown(_, let from, let upTo) = $0 { (from, upTo) } else { nil } }
    }

    static func cursor(_ n: Int) -> HistoryCursor { ScreenFixture.message(n).cursor }

    /// The numbers of the "bob: message N" rows on screen.
    static func shownNumbers(_ state: ScreenState) -> [Int] {
        // The "N new" indicator may share the last row: read the number after "message".
        ScreenFixture.roomLines(state).compactMap { row in
            row.firstRange(of: "bob: message ").flatMap { Int(row[$0.upperBound...].prefix { $0.isNumber }) }
        }
    }

    static func emptyPublic(width: Int = 100, height: Int = 40) -> ScreenState {
        var state = ScreenFixture().state(width: width, height: height)
        state.feed(.opened(HistoryPage(room: .publicRoom, messages: [], hasMoreBefore: false, hasMoreAfter: false), title: "public"))
        state.feed(.drawn)
        return state
    }

    /// The start-up case from the issue: the client opens the public room
    /// (nothing stored yet), then the catch-up brings 120 messages before a
    /// frame is drawn. The screen shows the first of them under the unread
    /// line, counts the rest as new, and marks read only what it drew.
    @Test func catchUpAtStartKeepsTheMarker() throws {
        var state = Self.emptyPublic()
        var effects: [ScreenEffect] = []
        for n in 1...120 { effects += state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        #expect(Self.marks(effects).isEmpty, "nothing is read before a frame shows it")
        let rows = ScreenFixture.roomLines(state)
        let line = try #require(rows.firstIndex { $0.contains("── unread ──") }, "no unread line:\n\(rows.joined(separator: "\n"))")
        #expect(rows[line + 1].hasSuffix("bob: message 1"))
        let shown = Self.shownNumbers(state)
        #expect(shown.first == 1 && shown.last! < 40)
        #expect(rows.contains { $0.contains("\(120 - shown.last!) new ↓") })
        // The frame is drawn: read up to the last message on it, from the first.
        effects = state.feed(.drawn)
        #expect(Self.marks(effects).map(\.upTo) == [Self.cursor(shown.last!)])
        #expect(Self.marks(effects).map(\.from) == [Self.cursor(1)])
        // Paging down reads on, screen by screen; nothing is skipped.
        var newest = shown.last!
        for _ in 0..<10 {
            state.feed(.key(.pageDown))
            let marks = Self.marks(state.feed(.drawn))
            let numbers = Self.shownNumbers(state)
            if let mark = marks.last {
                #expect(mark.from <= Self.cursor(newest + 1), "a gap between \(newest) and \(numbers.first!)")
                newest = numbers.last!
            }
        }
        #expect(newest == 120)
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("new ↓") })
    }

    /// A frame drawn in the middle of the burst showed the first messages:
    /// those are read, and the view stops at the first one it did not show.
    @Test func aFrameInTheMiddleOfTheBurstReadsWhatItShowed() throws {
        var state = Self.emptyPublic()
        for n in 1...10 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        #expect(Self.marks(state.feed(.drawn)).map(\.upTo) == [Self.cursor(10)])
        for n in 11...120 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        let rows = ScreenFixture.roomLines(state)
        let line = try #require(rows.firstIndex { $0.contains("── unread ──") })
        #expect(rows[line + 1].hasSuffix("bob: message 11"))
        #expect(rows[line - 1].hasSuffix("bob: message 10"), "context above the line")
    }

    /// Live messages that arrive a frame at a time are followed and read.
    @Test func liveMessagesFrameByFrameAreFollowedAndRead() {
        var state = Self.emptyPublic()
        var marks: [HistoryCursor] = []
        for n in 1...100 {
            state.feed(.message(ScreenFixture.message(n), name: "bob"))
            marks += Self.marks(state.feed(.drawn)).map(\.upTo)
        }
        #expect(marks == (1...100).map(Self.cursor))
        #expect(Self.shownNumbers(state).last == 100)
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("── unread ──") || $0.contains("new ↓") })
    }

    /// The same messages already in the store when the room opens: the page
    /// around the marker opens at the unread line, marks the first screen.
    @Test func fromTheStoreTheSameRule() {
        var state = ScreenFixture().state(width: 100, height: 40)
        state.feed(.opened(ScreenFixture.page(1...30, before: false, after: true, marker: nil), title: "public"))
        let rows = ScreenFixture.roomLines(state)
        let line = rows.firstIndex { $0.contains("── unread ──") }
        #expect(line.map { rows[$0 + 1].hasSuffix("bob: message 1") } == true)
        let marks = Self.marks(state.feed(.drawn))
        #expect(marks.map(\.from) == [Self.cursor(1)])
    }

    /// Jumping to the newest (End) over unseen messages leaves them unread
    /// (no mark from a screen that starts after them); the reader who
    /// scrolls back up to them reads them then.
    @Test func jumpingOverUnseenMessagesLeavesThemUnread() {
        var state = Self.emptyPublic()
        for n in 1...120 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        state.feed(.key(.end))
        #expect(Self.shownNumbers(state).last == 120)
        #expect(Self.marks(state.feed(.drawn)).isEmpty, "messages 1... were never shown")
        // Following again: a live message does not pull the view back up.
        state.feed(.message(ScreenFixture.message(121), name: "bob"))
        #expect(Self.shownNumbers(state).last == 121)
        #expect(Self.marks(state.feed(.drawn)).isEmpty)
    }

    /// A room not drawn (a panel over it, or a tiny terminal) reads nothing.
    @Test func aPanelOrATinyTerminalReadsNothing() {
        var state = Self.emptyPublic()
        state.feed(.message(ScreenFixture.message(1), name: "bob"), .panel(["help"]))
        #expect(Self.marks(state.feed(.drawn)).isEmpty)
        state.feed(.key(.escape), .resize(width: 10, height: 3))
        #expect(Self.marks(state.feed(.drawn)).isEmpty)
        state.feed(.resize(width: 100, height: 40))
        #expect(Self.marks(state.feed(.drawn)).map(\.upTo) == [Self.cursor(1)])
    }
}
