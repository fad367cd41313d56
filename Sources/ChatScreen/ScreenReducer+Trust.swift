import ChatCore

/// Key continuity on screen: a changed key is said on the status line when
/// it is reported and each time its conversation opens, and the room's
/// header keeps a "⚠ key changed" until the user verifies that key.
extension ScreenReducer {
    static func keyChanged(_ room: RoomID, notice: String, _ state: inout ScreenState) {
        let text = TerminalText.sanitize(notice)
        // Bounded: one warning per DM room, and rooms a peer can make are
        // bounded by the node's directory; past 1,024 the oldest are not kept.
        if state.keyNotices.count >= 1024, state.keyNotices[room] == nil { state.keyNotices.removeAll() }
        state.keyNotices[room] = text
        state.notice = text
    }

    /// The verified set changed: a flagged key the user has now verified
    /// is no longer a warning.
    static func verified(_ numbers: Set<NodeNumber>, _ state: inout ScreenState) {
        state.verified = numbers
        for room in state.keyNotices.keys where room.peer.map(numbers.contains) == true { state.keyNotices[room] = nil }
    }
}
