import ChatCore

/// Lines sent (or commands run) in each room, for Up/Down to recall, as
/// weechat keeps one history per buffer. Browsing keeps the line being
/// written as a draft, which Down past the newest brings back.
public struct InputHistory: Hashable, Sendable {
    /// Per room, oldest first.
    public private(set) var lines: [RoomID: [String]] = [:]
    /// Lines kept per room; the oldest go first.
    public static let capacity = 100

    struct Browsing: Hashable, Sendable {
        var room: RoomID
        /// Into `lines[room]`.
        var index: Int
        var draft: String
    }
    private var browsing: Browsing?

    public init() {}

    /// Remembers `line` for `room` (not twice in a row) and ends browsing.
    public mutating func record(_ line: String, room: RoomID) {
        browsing = nil
        guard !line.isEmpty else { return }
        var list = lines[room, default: []]
        if list.last != line { list.append(line) }
        if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        lines[room] = list
    }

    /// The line before the one shown (Up); nil at the oldest. `current`
    /// is the input now, kept as the draft when browsing starts.
    public mutating func older(room: RoomID, current: String) -> String? {
        let list = lines[room, default: []]
        var state = browsing?.room == room ? browsing! : Browsing(room: room, index: list.count, draft: current)
        guard state.index > 0 else { return nil }
        state.index -= 1
        browsing = state
        return list[state.index]
    }

    /// The line after the one shown (Down); past the newest, the draft;
    /// nil when not browsing.
    public mutating func newer(room: RoomID) -> String? {
        guard var state = browsing, state.room == room else { return nil }
        let list = lines[room, default: []]
        state.index += 1
        if state.index >= list.count {
            browsing = nil
            return state.draft
        }
        browsing = state
        return list[state.index]
    }

    /// Leaves browsing (the room changed); the line shown stays as typed.
    public mutating func stopBrowsing() { browsing = nil }
}
