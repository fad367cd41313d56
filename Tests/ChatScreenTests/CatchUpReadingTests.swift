import ChatCore
import ChatScreen
import Foundation
import Testing

/// Issue 27: "reading is what the eye saw, on every path". Messages that
/// arrive by catch-up, live or from the store are placed by one rule, and
/// the read marker moves only over messages a frame drew in full.
/// The reader's eye in the tests: frames at a time that moves on.
struct Eye {
    var now = Duration.zero

    /// A frame is drawn and replaced before the dwell: nothing is seen.
    mutating func glance(_ state: inout ScreenState) -> [ScreenEffect] {
        defer { now += .milliseconds(33) }
        return state.feed(.drawn(at: now))
    }

    /// A frame is drawn and stays for the dwell: what it shows is seen.
    mutating func look(_ state: inout ScreenState) -> [ScreenEffect] {
        var effects = state.feed(.drawn(at: now))
        now += ScreenReducer.dwell
        effects += state.feed(.drawn(at: now))
        now += .milliseconds(1)
        return effects
    }
}

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
        var eye = Eye()
        _ = eye.look(&state)
        return state
    }

    /// The start-up case from the issue: the client opens the public room
    /// (nothing stored yet), then the catch-up brings 120 messages before a
    /// frame is drawn. The screen shows the first of them under the unread
    /// line, counts the rest as new, and marks read only what it drew.
    @Test func catchUpAtStartKeepsTheMarker() throws {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        var effects: [ScreenEffect] = []
        for n in 1...120 { effects += state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        #expect(Self.marks(effects).isEmpty, "nothing is read before a frame shows it")
        let rows = ScreenFixture.roomLines(state)
        let line = try #require(rows.firstIndex { $0.contains("── unread ──") }, "no unread line:\n\(rows.joined(separator: "\n"))")
        #expect(rows[line + 1].hasSuffix("bob: message 1"))
        let shown = Self.shownNumbers(state)
        #expect(shown.first == 1 && shown.last! < 40)
        #expect(rows.contains { $0.contains("\(120 - shown.last!) new ↓") })
        // A frame that is replaced at once reads nothing; one that stays
        // reads up to the last message on it, from the first.
        #expect(Self.marks(eye.glance(&state)).isEmpty)
        effects = eye.look(&state)
        #expect(Self.marks(effects).map(\.upTo) == [Self.cursor(shown.last!)])
        #expect(Self.marks(effects).map(\.from) == [Self.cursor(1)])
        // Paging down reads on, screen by screen; nothing is skipped.
        var newest = shown.last!
        for _ in 0..<10 {
            state.feed(.key(.pageDown))
            let marks = Self.marks(eye.look(&state))
            let numbers = Self.shownNumbers(state)
            if let mark = marks.last {
                #expect(mark.from <= Self.cursor(newest + 1), "a gap between \(newest) and \(numbers.first!)")
                newest = numbers.last!
            }
        }
        #expect(newest == 120)
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("new ↓") })
    }

    /// A frame drawn in the middle of the burst, replaced before the dwell,
    /// read nothing: the view stops at the first message of the burst.
    @Test func aFrameInTheMiddleOfTheBurstReadsNothing() throws {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        for n in 1...10 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        #expect(Self.marks(eye.glance(&state)).isEmpty)
        for n in 11...120 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        let rows = ScreenFixture.roomLines(state)
        let line = try #require(rows.firstIndex { $0.contains("── unread ──") })
        #expect(rows[line + 1].hasSuffix("bob: message 1"))
        #expect(Self.marks(eye.look(&state)).map(\.from) == [Self.cursor(1)])
    }

    /// A frame that stayed showed the first messages: those are read, and
    /// the view stops at the first one it did not show.
    @Test func aFrameThatStayedReadsWhatItShowed() throws {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        for n in 1...10 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        #expect(Self.marks(eye.look(&state)).map(\.upTo) == [Self.cursor(10)])
        for n in 11...120 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        let rows = ScreenFixture.roomLines(state)
        let line = try #require(rows.firstIndex { $0.contains("── unread ──") })
        #expect(rows[line + 1].hasSuffix("bob: message 11"))
        #expect(rows[line - 1].hasSuffix("bob: message 10"), "context above the line")
        #expect(Self.marks(eye.look(&state)).map(\.from) == [Self.cursor(9)])
    }

    /// A flood faster than anyone reads (10 messages a frame, 300 a
    /// second, each on screen for about a quarter second) scrolls by: the
    /// view follows, as each frame drew each message, but none stayed for
    /// the dwell, so the marker stays where the flood began.
    @Test func aFloodIsFollowedButNotRead() {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        var effects: [ScreenEffect] = []
        for n in 1...400 {
            state.feed(.message(ScreenFixture.message(n), name: "bob"))
            if n % 10 == 0 { effects += eye.glance(&state) }
        }
        #expect(Self.shownNumbers(state).last == 400, "followed")
        effects += eye.look(&state)
        #expect(Self.marks(effects).isEmpty, "the first 360 were never on screen for the dwell")
    }

    /// A busy conversation of 30 a second keeps each message on a 37-row
    /// screen for over a second: followed and read as it goes.
    @Test func aBusyConversationIsFollowedAndRead() {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        var effects: [ScreenEffect] = []
        for n in 1...200 {
            state.feed(.message(ScreenFixture.message(n), name: "bob"))
            effects += eye.glance(&state)
        }
        effects += eye.look(&state)
        #expect(Self.shownNumbers(state).last == 200)
        #expect(Self.marks(effects).last?.upTo == Self.cursor(200))
        // Every mark starts where the one before ended or earlier: no gap.
        let marks = Self.marks(effects)
        for (before, after) in zip(marks, marks.dropFirst()) { #expect(after.from <= before.upTo) }
    }

    /// Live messages that arrive a frame at a time are followed and read.
    @Test func liveMessagesFrameByFrameAreFollowedAndRead() {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        var marks: [HistoryCursor] = []
        for n in 1...100 {
            state.feed(.message(ScreenFixture.message(n), name: "bob"))
            marks += Self.marks(eye.look(&state)).map(\.upTo)
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
        var eye = Eye()
        let marks = Self.marks(eye.look(&state))
        #expect(marks.map(\.from) == [Self.cursor(1)])
    }

    /// Jumping to the newest (End) over unseen messages leaves them unread
    /// (no mark from a screen that starts after them); the reader who
    /// scrolls back up to them reads them then.
    @Test func jumpingOverUnseenMessagesLeavesThemUnread() {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        for n in 1...120 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        state.feed(.key(.alt(.end)))  // End edits the input now; Alt-End goes to the newest
        #expect(Self.shownNumbers(state).last == 120)
        #expect(Self.marks(eye.look(&state)).isEmpty, "messages 1... were never shown")
        // Following again: a live message does not pull the view back up.
        state.feed(.message(ScreenFixture.message(121), name: "bob"))
        #expect(Self.shownNumbers(state).last == 121)
        #expect(Self.marks(eye.look(&state)).isEmpty)
    }

    /// A room not drawn (a panel over it, or a tiny terminal) reads nothing.
    @Test func aPanelOrATinyTerminalReadsNothing() {
        var state = Self.emptyPublic()
        var eye = Eye(now: .seconds(10))
        state.feed(.message(ScreenFixture.message(1), name: "bob"), .panel(["help"]))
        #expect(Self.marks(eye.look(&state)).isEmpty)
        state.feed(.key(.escape), .resize(width: 10, height: 3))
        #expect(Self.marks(eye.look(&state)).isEmpty)
        state.feed(.resize(width: 100, height: 40))
        #expect(Self.marks(eye.glance(&state)).isEmpty, "seen from this frame on, not before")
        #expect(Self.marks(eye.look(&state)).map(\.upTo) == [Self.cursor(1)])
    }
}

/// The reader's own moves are not arrivals: paging down fast to the newest
/// follows from there, without being pulled back to what flashed past.
@Suite struct ReaderMovesTests {
    @Test func pagingDownFastToTheNewestStaysThere() {
        var state = ScreenFixture().state(width: 100, height: 40)
        state.feed(.opened(ScreenFixture.page(1...100, before: false, after: false, marker: 0), title: "public"))
        var eye = Eye(now: .seconds(1))
        _ = eye.look(&state)
        for _ in 0..<4 { state.feed(.key(.pageDown)) }
        #expect(CatchUpReadingTests.shownNumbers(state).last == 100)
        // Nothing between the first screen and this one was seen: no mark.
        #expect(CatchUpReadingTests.marks(eye.look(&state)).isEmpty)
        // A live message: followed, not pulled back up to message 36.
        state.feed(.message(ScreenFixture.message(101), name: "bob"))
        #expect(CatchUpReadingTests.shownNumbers(state).last == 101)
    }
}

/// A burst that arrives while a panel (help, /log) covers the room is
/// placed by the same rule once the panel closes.
@Suite struct PanelArrivalTests {
    @Test func aBurstUnderAPanelStopsAtTheFirstUnseenWhenItCloses() throws {
        var state = CatchUpReadingTests.emptyPublic()
        state.feed(.panel(["help"]))
        for n in 1...120 { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        state.feed(.key(.escape))
        let rows = ScreenFixture.roomLines(state)
        let line = try #require(rows.firstIndex { $0.contains("── unread ──") }, "\(rows.joined(separator: "\n"))")
        #expect(rows[line + 1].hasSuffix("bob: message 1"))
    }
}
