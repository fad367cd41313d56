import ChatCore

/// Key continuity on screen: a changed key is said on the status line when
/// it is reported and each time its conversation opens, and the room's
/// header keeps a "⚠ key changed" until the session ends.
extension ScreenReducer {
    static func keyChanged(_ room: RoomID, notice: String, _ state: inout ScreenState) {
        let text = TerminalText.sanitize(notice)
        // Bounded: one warning per DM room, and rooms a peer can make are
        // bounded by the node's directory; past 1,024 the oldest are not kept.
        if state.keyNotices.count >= 1024, state.keyNotices[room] == nil { state.keyNotices.removeAll() }
        state.keyNotices[room] = text
        state.notice = text
    }
}
