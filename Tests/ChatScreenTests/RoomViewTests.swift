import ChatCore
import ChatScreen
import Foundation
import Testing

@Suite struct RoomViewTests {
    func opened(_ range: ClosedRange<Int>, before: Bool, after: Bool, marker: Int?, height: Int = 24) -> (ScreenState, [ScreenEffect]) {
        var state = ScreenFixture().state(height: height)
        var effects = state.feed(.opened(ScreenFixture.page(range, before: before, after: after, marker: marker), title: "public"))
        var eye = Eye()
        effects += eye.look(&state)
        return (state, effects)
    }

    @Test func opensAtTheUnreadLineAndMarksOnlyWhatIsShown() {
        let (state, effects) = opened(1...30, before: false, after: false, marker: 10)
        let rows = ScreenFixture.roomLines(state)
        let line = rows.firstIndex { $0.contains("── unread ──") }
        #expect(line == 3)  // header row, two messages of context, then the line
        #expect(rows[1].hasSuffix("bob: message 9") && rows[4].hasSuffix("bob: message 11"))
        // 21 message rows: 9..10, the line, 11..28 -> read up to 28, not 30.
        #expect(effects == [.markShown(.publicRoom, from: ScreenFixture.message(9).cursor, upTo: ScreenFixture.message(28).cursor)])
    }

    @Test func dayHeadersWhereTheDayChanges() {
        var state = ScreenFixture().state()
        let late = Date(timeIntervalSince1970: 1_795_391_400)  // 2026-11-22 23:50 UTC
        let page = HistoryPage(room: .publicRoom, messages: (1...20).map { ScreenFixture.message($0, at: late) }, hasMoreBefore: false, hasMoreAfter: false, readMarker: ScreenFixture.message(20, at: late).cursor)
        state.feed(.opened(page, title: "public"))
        let rows = ScreenFixture.roomLines(state)
        #expect(rows.contains { $0.contains("── 23 November 2026 ──") })
        let index = rows.firstIndex { $0.contains("23 November") }!
        #expect(rows[index - 1].contains("message 9") && rows[index + 1].contains("00:00 bob: message 10"))
    }

    @Test func scrollingUpAsksForTheOlderPageAndKeepsThePlace() {
        var (state, _) = opened(31...60, before: true, after: false, marker: 60)
        var effects: [ScreenEffect] = []
        for _ in 0..<3 { effects += state.feed(.key(.pageUp)) }
        let older = ScreenEffect.loadPage(.publicRoom, .older, from: ScreenFixture.message(31).cursor)
        #expect(effects.filter { $0 == older }.count == 1)  // asked once, not per key
        let firstMessage = { (state: ScreenState) in ScreenFixture.roomLines(state).first { $0.contains("bob: message") } }
        let before = firstMessage(state)
        state.feed(.pageLoaded(ScreenFixture.page(1...30, before: false, after: true), .older))
        #expect(firstMessage(state) == before)
        #expect(state.view?.messages.count == 60)
        for _ in 0..<6 { state.feed(.key(.pageUp)) }
        // The oldest message, under the beginning of the conversation.
        #expect(ScreenFixture.roomLines(state)[1].contains("── beginning of the conversation ──"))
        #expect(ScreenFixture.roomLines(state)[3].hasSuffix("bob: message 1"))
    }

    @Test func scrollingDownAsksForTheNewerPageThenFollows() {
        var (state, _) = opened(1...30, before: false, after: true, marker: 5)
        var effects: [ScreenEffect] = []
        for _ in 0..<3 { effects += state.feed(.key(.pageDown)) }
        #expect(effects.contains(.loadPage(.publicRoom, .newer, from: ScreenFixture.message(30).cursor)))
        effects += state.feed(.pageLoaded(ScreenFixture.page(31...40, before: true, after: false), .newer))
        var eye = Eye(now: .seconds(10))
        for _ in 0..<3 { effects += state.feed(.key(.pageDown)) + eye.look(&state) }
        #expect(state.view?.anchor == .bottom)
        #expect(ScreenFixture.roomLines(state)[21].hasSuffix("bob: message 40"))
        guard case .markShown(.publicRoom, _, let newest) = effects.last else { Issue.record("no mark: \(effects)"); return }
        #expect(newest == ScreenFixture.message(40).cursor)
    }

    @Test func liveMessageAtTheBottomIsShown() {
        var (state, _) = opened(1...30, before: false, after: false, marker: 30)
        #expect(state.feed(.message(ScreenFixture.message(31), name: "bob")).isEmpty, "not read before a frame shows it")
        let rows = ScreenFixture.roomLines(state)
        #expect(rows[21].hasSuffix("bob: message 31"))
        #expect(!rows.joined().contains("new ↓"))
        var eye = Eye(now: .seconds(10))
        #expect(eye.look(&state) == [.markShown(.publicRoom, from: ScreenFixture.message(11).cursor, upTo: ScreenFixture.message(31).cursor)])
    }

    @Test func liveMessageWhileScrolledBackIsAnnounced() {
        var (state, _) = opened(1...30, before: false, after: false, marker: 30)
        state.feed(.key(.pageUp), .key(.pageUp))
        var eye = Eye(now: .seconds(10))
        let effects = state.feed(.message(ScreenFixture.message(31), name: "bob")) + eye.look(&state)
        #expect(effects.isEmpty)  // not seen, not read
        #expect(state.view?.messages.count == 31)  // newest loaded: kept in order
        #expect(ScreenFixture.roomLines(state)[21].contains("1 new ↓"))
        state.feed(.key(.alt(.end)))
        #expect(ScreenFixture.roomLines(state)[21].hasSuffix("bob: message 31"))
        #expect(!ScreenFixture.roomLines(state)[21].contains("new ↓"))
    }

    @Test func liveMessageWithNewerPagesUnloadedIsNotAppended() {
        var (state, _) = opened(1...30, before: false, after: true, marker: 5)
        state.feed(.message(ScreenFixture.message(90), name: "bob"))
        #expect(state.view?.messages.count == 30)  // never after a gap
        #expect(!ScreenFixture.roomLines(state).contains { $0.contains("message 90") })
        #expect(ScreenFixture.roomLines(state)[21].contains("1 new ↓"))
    }

    @Test func ownMessagesShowDeliveryState() {
        var state = ScreenFixture().state()
        let room = RoomID.direct(ScreenFixture.bob)
        state.feed(.opened(HistoryPage(room: room, messages: [], hasMoreBefore: false, hasMoreAfter: false), title: "bob"))
        let mine = ScreenFixture.message(1, room: room, from: ScreenFixture.me, text: "hi bob")
        state.feed(.message(mine, name: "alice"), .delivery(mine.id, .queued))
        #expect(ScreenFixture.roomLines(state)[21].hasSuffix("alice: hi bob (queued)"))
        state.feed(.delivery(mine.id, .delivered))
        #expect(ScreenFixture.roomLines(state)[21].hasSuffix("alice: hi bob (delivered)"))
        #expect(ScreenFixture.roomLines(state)[0].contains("@bob · offline"))
    }

    @Test func peerTextIsSanitized() {
        var (state, _) = opened(1...2, before: false, after: false, marker: 2)
        state.feed(.message(ScreenFixture.message(3, text: "x\u{1B}[2Jy\u{1B}]0;evil\u{07}z"), name: "b\u{1B}[31mob"))
        let all = ScreenRenderer.render(state).grid.cells.map(\.character)
        #expect(!all.contains("\u{1B}"))
        #expect(ScreenFixture.roomLines(state)[21].hasSuffix("bob: xyz"))
    }
}

/// A room left open on a busy conversation keeps only its newest part
/// loaded while the reader follows; scrolling up pages the rest back in.
@Suite struct FollowedRoomTests {
    @Test func followingKeepsTheNewestAndCanPageBack() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...30, before: false, after: false, marker: 30), title: "public"))
        let kept = RoomView.keptWhileFollowing
        // A frame after each message: the reader saw each one arrive.
        var eye = Eye()
        for n in 31...(30 + 3 * kept) { state.feed(.message(ScreenFixture.message(n), name: "bob")); _ = eye.glance(&state) }
        let view = try! #require(state.view)
        #expect(view.messages.count >= kept && view.messages.count < 2 * kept, "\(view.messages.count) loaded")
        #expect(view.messages.last?.message.id == ScreenFixture.message(30 + 3 * kept).id)
        #expect(view.window.hasMoreBefore)
        #expect(view.window.olderPageCursor == view.messages.first?.cursor)
        #expect(view.window.count == view.messages.count)
        #expect(ScreenFixture.roomLines(state).last { $0.contains("bob: message") }?.hasSuffix("message \(30 + 3 * kept)") == true)
        // Scrolling up asks the store for what was let go.
        var effects: [ScreenEffect] = []
        for _ in 0..<(kept / 10) { effects += state.feed(.key(.pageUp)) }
        #expect(effects.contains(.loadPage(.publicRoom, .older, from: view.messages[0].cursor)))
    }

    @Test func aReaderScrolledBackKeepsEverything() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...30, before: false, after: false, marker: 30), title: "public"))
        state.feed(.key(.pageUp))
        let kept = RoomView.keptWhileFollowing
        for n in 31...(30 + 3 * kept) { state.feed(.message(ScreenFixture.message(n), name: "bob")) }
        #expect(state.view?.messages.count == 30 + 3 * kept)
        #expect(state.view?.window.hasMoreBefore == false)
    }

    @Test func noCutWhileAnOlderPageIsOnItsWay() {
        var state = ScreenFixture().state()
        let kept = RoomView.keptWhileFollowing
        state.feed(.opened(ScreenFixture.page(1001...1030, before: true, after: false, marker: 1030), title: "public"))
        var eye = Eye()
        for n in 1031...(1000 + 2 * kept - 1) { state.feed(.message(ScreenFixture.message(n), name: "bob")); _ = eye.glance(&state) }
        state.feed(.key(.alt(.home)))
        #expect(state.view?.pending == .older)
        state.feed(.key(.alt(.end)))
        state.feed(.message(ScreenFixture.message(1000 + 2 * kept), name: "bob"))
        state.feed(.pageLoaded(ScreenFixture.page(971...1000, before: true, after: true), .older))
        let ids = state.view?.messages.map(\.message.id) ?? []
        let contiguous = ids == (971...(1000 + 2 * kept)).map { ScreenFixture.message($0).id }
        #expect(contiguous, "one run, no gap: \(ids.count) loaded")
    }

    @Test func aCopyOfALoadedMessageIsNotAddedTwice() {
        var state = ScreenFixture().state()
        state.feed(.opened(ScreenFixture.page(1...30, before: false, after: false, marker: 30), title: "public"))
        state.feed(.message(ScreenFixture.message(31), name: "bob"))
        state.feed(.message(ScreenFixture.message(31), name: "bob"))
        state.feed(.message(ScreenFixture.message(20), name: "bob"))
        #expect(state.view?.messages.count == 31)
    }
}
