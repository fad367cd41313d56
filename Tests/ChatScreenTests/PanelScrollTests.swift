@testable import ChatScreen
import Testing

/// A panel taller than the room (`/help` on 80x24 is 70 rows) scrolls, so
/// its end (`/send`, `/quit`) can be read; one that fits closes on any key
/// as before. Long lines wrap under their text column.
@Suite struct PanelScrollTests {
    /// Forty numbered lines: taller than an 80x24 room (20 panel rows).
    static let tall = (1...40).map { "line \($0)" }

    static func panelRows(_ state: ScreenState) -> [String] {
        Array(ScreenFixture.roomLines(state)[1..<state.messageRows])
    }

    static func trimmed(_ row: String) -> String {
        var row = row
        while row.last == " " { row.removeLast() }
        return row
    }

    static func footer(_ state: ScreenState) -> String {
        ScreenFixture.roomLines(state)[state.messageRows]
    }

    @Test func aTallPanelScrollsAndSaysWhereItIs() {
        var state = ScreenFixture().state()
        state.feed(.panel(Self.tall))
        #expect(Self.panelRows(state).first == " line 1")
        #expect(Self.footer(state).contains("1-20 of 40"), "\(Self.footer(state))")
        state.feed(.key(.down))
        #expect(state.panel != nil, "a scrolling key keeps the panel")
        #expect(Self.panelRows(state).first == " line 2")
        state.feed(.key(.pageDown), .key(.pageDown), .key(.pageDown))
        // The end: the last line is on screen, and scrolling stops there.
        #expect(Self.panelRows(state).last == " line 40")
        #expect(Self.footer(state).contains("21-40 of 40"), "\(Self.footer(state))")
        state.feed(.key(.home))
        #expect(Self.panelRows(state).first == " line 1")
        state.feed(.key(.mouse(MouseEvent(.wheelDown, row: 5, column: state.roomColumn + 3))))
        #expect(Self.panelRows(state).first == " line 4")
    }

    /// `/log` reads newest last: it opens at its end and scrolls back.
    @Test func aPanelFromItsEndOpensAtItsLastLinesAndScrollsBack() {
        var state = ScreenFixture().state()
        state.feed(.panelFromEnd(Self.tall))
        #expect(Self.panelRows(state).last == " line 40")
        #expect(Self.footer(state).contains("21-40 of 40"), "\(Self.footer(state))")
        state.feed(.key(.up))
        #expect(state.panel != nil)
        #expect(Self.panelRows(state).last == " line 39")
        state.feed(.key(.end), .key(.down))
        #expect(Self.panelRows(state).last == " line 40", "no scrolling past the end")
        state.feed(.key(.home))
        #expect(Self.panelRows(state).first == " line 1")
    }

    @Test func anyOtherKeyClosesItAndIsTyped() {
        var state = ScreenFixture().state()
        state.feed(.panel(Self.tall), .key(.pageDown), .key(.text("x")))
        #expect(state.panel == nil)
        #expect(state.input.text == "x")
    }

    @Test func aPanelThatFitsClosesOnAScrollingKeyAsBefore() {
        var state = ScreenFixture().state()
        state.feed(.panel(["short"]))
        #expect(Self.footer(state) == " (any key closes)")
        state.feed(.key(.pageDown))
        #expect(state.panel == nil)
    }

    @Test func aNewPanelStartsAtItsTop() {
        var state = ScreenFixture().state()
        state.feed(.panel(Self.tall), .key(.end))
        #expect(state.panelTop > 0)
        state.feed(.panel(Self.tall.reversed()))
        #expect(state.panelTop == 0)
        #expect(Self.panelRows(state).first == " line 40")
    }

    @Test func aResizeKeepsTheEndInView() {
        var state = ScreenFixture().state()
        state.feed(.panel(Self.tall), .key(.end), .resize(width: 80, height: 40))
        // 36 panel rows now: the top is clamped, the last line still shows.
        #expect(Self.panelRows(state).contains(" line 40"))
        #expect(Self.panelRows(state).first == " line 5")
    }

    // MARK: Wrapping

    @Test func aTwoColumnLineWrapsUnderItsText() {
        let rows = PanelLayout.rows(["  /open ROOM      switch room (public, or a peer's name) and show it"], width: 40)
        #expect(rows == ["  /open ROOM      switch room (public,", "                  or a peer's name)", "                  and show it"])
    }

    @Test func handWrappedContinuationsJoinOnlyWhenTheLineMustWrap() {
        let help = ["  /open ROOM      switch room (public, or a peer's name) and show it from",
                    "                  where you stopped reading"]
        // Narrow: one paragraph, no stub line holding "from" alone.
        #expect(PanelLayout.rows(help, width: 72) == [
            "  /open ROOM      switch room (public, or a peer's name) and show it",
            "                  from where you stopped reading",
        ])
        // Wide enough: the lines as written.
        #expect(PanelLayout.rows(help, width: 80) == help)
    }

    @Test func entriesAtOneIndentationStaySeparate() {
        let peers = ["  alice#1a2b linked from 10.0.0.2 on the LAN segment of the office floor",
                     "  bob#3c4d linked from 10.0.0.3"]
        let rows = PanelLayout.rows(peers, width: 40)
        #expect(rows.contains("  bob#3c4d linked from 10.0.0.3"))
    }

    /// `/log`: a heading that wraps, then entries indented under it; each
    /// entry stays a line of its own (tui-test looks for one's text).
    @Test func entriesUnderAWrappedHeadingStaySeparate() {
        let log = ["log (/tmp/some/long/directory/lanchat.log, older in /tmp/some/long/directory/lanchat.log.1):",
                   "  2026-11-27T17:16:13.012Z [lanchat] notice: keeping 2580 MiB free",
                   "  2026-11-27T17:16:13.098Z [transport] warning: a protocol v1 node at 127.0.0.1"]
        let rows = PanelLayout.rows(log, width: 74)
        #expect(rows.contains { $0.hasPrefix("  2026-11-27T17:16:13.098Z [transport] warning: a protocol v1 node") }, "\(rows)")
        #expect(rows.contains { $0.hasPrefix("  2026-11-27T17:16:13.012Z [lanchat] notice") }, "\(rows)")
    }

    @Test func aCommandFillingItsColumnContinuesUnderTheOthers() {
        let help = ["  /peers          who is linked",
                    "  /rooms          conversations",
                    "  /quit           leave",
                    "  /cancel-file ID stop a transfer either way     /files  list transfers"]
        let rows = PanelLayout.rows(help, width: 50)
        #expect(rows.suffix(2).map(Self.trimmed) == ["  /cancel-file ID stop a transfer either way",
                                                     "                  /files  list transfers"])
    }
}
