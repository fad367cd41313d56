import ChatCore
import ChatScreen
import Foundation
import Testing

/// Key continuity on the full screen: a changed key's notice on the status
/// line (sanitized), again when its conversation opens, "⚠ key changed" in
/// its header; verified peers' names carry the ✓ on their messages and in
/// their room's header.
@Suite struct KeyTrustScreenTests {
    static let notice = "bob's key is not the one you have seen since 5 March 2026 (before: 3f2a 9c01…, now: 7b1e 0042…). If you did not expect this, it may be someone else: /verify bob"

    @Test func aChangedKeyIsSaidAndStaysOnItsConversation() {
        var state = ScreenFixture().state(width: 100, height: 20)
        let room = RoomID.direct(ScreenFixture.bob)
        state.feed(.rooms([RoomEntry(room: .publicRoom, title: "public"), RoomEntry(room: room, title: "bob")]),
                   .opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        // A peer's text inside the notice cannot reach the terminal raw.
        state.feed(.keyChanged(room, notice: Self.notice + "\u{1B}[2J"))
        #expect(state.notice?.hasPrefix("bob's key is not the one you have seen since 5 March 2026") == true)
        #expect(state.notice?.contains("\u{1B}") == false)
        #expect(ScreenFixture.lines(state)[state.height - 2].contains("bob's key is not the one"))
        // Something else is said; opening bob's conversation says it again.
        state.feed(.notice("done"))
        state.feed(.opened(ScreenFixture.page(1...2, room: room, before: false, after: false, marker: 2), title: "bob"))
        #expect(state.notice?.contains("/verify bob") == true)
        #expect(ScreenFixture.roomLines(state)[0].contains("@bob · offline · ⚠ key changed"))
        // The public room's header says nothing of it.
        state.feed(.opened(ScreenFixture.page(1...3, before: false, after: false, marker: 3), title: "public"))
        #expect(!ScreenFixture.roomLines(state)[0].contains("key changed"))
        // Verified (/verify bob ok): the warning is gone, the mark is there.
        state.feed(.verified([ScreenFixture.bob]), .notice("done"))
        state.feed(.opened(ScreenFixture.page(1...2, room: room, before: false, after: false, marker: 2), title: "bob"))
        #expect(ScreenFixture.roomLines(state)[0].contains("@bob ✓ · offline"))
        #expect(!ScreenFixture.roomLines(state)[0].contains("key changed"))
        #expect(state.notice == "done")
    }

    @Test func verifiedPeersCarryTheMark() {
        var state = ScreenFixture().state(width: 100, height: 20)
        let room = RoomID.direct(ScreenFixture.bob)
        state.feed(.rooms([RoomEntry(room: .publicRoom, title: "public"), RoomEntry(room: room, title: "bob")]),
                   .opened(ScreenFixture.page(1...1, before: false, after: false, marker: 1), title: "public"))
        state.feed(.message(ScreenFixture.message(2), name: "bob"))
        #expect(ScreenFixture.roomLines(state).contains { $0.hasSuffix("bob: message 2") })
        state.feed(.verified([ScreenFixture.bob]))
        state.feed(.message(ScreenFixture.message(3), name: "bob"), .message(ScreenFixture.message(4, from: ScreenFixture.carol), name: "carol"))
        let rows = ScreenFixture.roomLines(state)
        #expect(rows.contains { $0.hasSuffix("bob ✓: message 3") })
        #expect(rows.contains { $0.hasSuffix("carol: message 4") }, "only the verified one")
        // In the list too, and Tab still completes the bare name.
        #expect(ScreenFixture.sideLines(state).contains { $0.contains("bob ✓") })
        state.feed(.key(.text("b")), .key(.tab))
        #expect(state.input.text == "bob: ")
        state.feed(.opened(ScreenFixture.page(1...2, room: room, before: false, after: false, marker: 2), title: "bob"))
        #expect(ScreenFixture.roomLines(state)[0].contains("@bob ✓ · offline"))
    }
}
