/// The mouse (SGR reports, when the session asked for them): the wheel
/// scrolls the room (or the list, over it), a click on the list opens that
/// conversation, a click on the input line puts the cursor there.
extension ScreenReducer {
    /// Messages one wheel notch moves.
    static let wheelStep = 2

    static func mouse(_ event: MouseEvent, _ state: inout ScreenState) -> [ScreenEffect] {
        let overList = state.sideWidth > 0 && event.column < state.sideWidth && event.row >= 1 && event.row <= state.sideRows
        switch event.action {
        case .wheelUp, .wheelDown:
            let up = event.action == .wheelUp
            if overList {
                let last = max(0, state.side.rows.count - state.sideRows)
                state.side.top = min(last, max(0, state.side.top + (up ? -3 : 3)))
                return []
            }
            return scroll(by: up ? -wheelStep : wheelStep, &state)
        case .press(0) where overList:
            let index = state.side.top + event.row - 1
            guard index < state.side.rows.count, case .room(let room) = state.side.rows[index] else { return [] }
            return open(room, &state)
        case .press(0) where event.row == state.height - 1:
            placeCursor(atColumn: event.column, &state)
            return []
        default:
            return []
        }
    }

    /// Moves the input cursor to the grapheme drawn at `column`.
    static func placeCursor(atColumn column: Int, _ state: inout ScreenState) {
        let layout = ScreenRenderer.inputLayout(state)
        let window = state.input.window(width: layout.space)
        // Graphemes before the window: the cursor's offset less its column's.
        let chars = Array(state.input.text)
        var before = state.input.cursor
        var width = 0
        while before > 0, width < window.cursorColumn {
            before -= 1
            width += chars[before] == "\n" ? 1 : DisplayWidth.of(chars[before])
        }
        var offset = before
        var x = layout.column
        while offset < chars.count {
            let w = chars[offset] == "\n" ? 1 : DisplayWidth.of(chars[offset])
            if x + w > column { break }
            x += w
            offset += 1
        }
        state.input.move(to: offset)
    }
}
