import ChatCore
import ChatScreen
import Foundation
import TestSupport

/// Builds screens and messages for the grid tests: a fixed clock, UTC or
/// Seoul time, and messages one minute apart.
struct ScreenFixture {
    static let me = NodeNumber(rawValue: 0x1111)!
    static let bob = NodeNumber(rawValue: 0x2222)!
    static let carol = NodeNumber(rawValue: 0x3333)!
    /// 2026-11-23 12:00 UTC.
    static let noon = Date(timeIntervalSince1970: 1_795_435_200)

    let clock: ManualClock
    let grouping: ChatListGrouping

    init(now: Date = ScreenFixture.noon, locale: String = "en_US", timeZone: String = "UTC") {
        clock = ManualClock(now: now)
        grouping = ChatListGrouping(clock: clock, timeZone: TimeZone(identifier: timeZone)!, locale: Locale(identifier: locale))
    }

    func state(width: Int = 80, height: Int = 24) -> ScreenState {
        ScreenState(width: width, height: height, me: Self.me, myName: "alice", grouping: grouping)
    }

    static func message(_ n: Int, room: RoomID = .publicRoom, from sender: NodeNumber = bob, text: String? = nil, at base: Date = noon.addingTimeInterval(-3600)) -> Message {
        let millis = Int64((base.timeIntervalSince1970 + Double(n) * 60) * 1000)
        return Message(
            id: MessageID(millis: millis, random: (UInt64(n), UInt64(n))), room: room, senderNumber: sender,
            senderNickname: sender == me ? "alice" : sender == bob ? "bob" : "carol", content: text ?? "message \(n)", timestamp: millis)
    }

    /// Messages `range` of a room as one page.
    static func page(_ range: ClosedRange<Int>, room: RoomID = .publicRoom, before: Bool, after: Bool, marker: Int? = nil) -> HistoryPage {
        HistoryPage(
            room: room, messages: range.map { message($0, room: room) }, hasMoreBefore: before, hasMoreAfter: after,
            readMarker: marker.map { message($0, room: room).cursor })
    }

    static func lines(_ state: ScreenState) -> [String] { ScreenRenderer.render(state).grid.lines }

    /// The side list's rows, trailing spaces trimmed.
    static func sideLines(_ state: ScreenState) -> [String] {
        lines(state).map { line in
            var text = String(line.prefix(state.sideWidth))
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    /// The room area's text of each row (after the side list).
    static func roomLines(_ state: ScreenState) -> [String] {
        let grid = ScreenRenderer.render(state).grid
        return (0..<grid.height).map { row in
            var text = ""
            for x in state.roomColumn..<grid.width where !grid[row, x].isContinuation { text.append(grid[row, x].character) }
            while text.last == " " { text.removeLast() }
            return text
        }
    }
}

extension ScreenState {
    /// Feeds events, collecting every effect.
    @discardableResult
    mutating func feed(_ events: ScreenEvent...) -> [ScreenEffect] {
        events.flatMap { ScreenReducer.reduce(&self, $0) }
    }
}
