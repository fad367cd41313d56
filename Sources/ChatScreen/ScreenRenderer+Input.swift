/// The input line at the bottom: the room's label, the window of the text
/// around the cursor (it never leaves its row), and the live count.
extension ScreenRenderer {
    struct InputLayout {
        var label: String
        /// Where the text starts, after the label.
        var column: Int
        /// Columns for the text.
        var space: Int
        var counter: String
    }

    static func inputLayout(_ state: ScreenState) -> InputLayout {
        let label = "[" + ((state.opening ?? state.view?.room).map { state.label($0) } ?? "-") + "] "
        let counter = " \(state.input.count)/\(InputLine.limit)"
        let labelWidth = min(DisplayWidth.of(label), state.width / 2)
        let space = max(1, state.width - labelWidth - counter.count - 1)
        return InputLayout(label: label, column: labelWidth, space: space, counter: counter)
    }

    /// Draws the input row; returns the cursor column.
    static func drawInput(_ state: ScreenState, into grid: inout ScreenGrid) -> Int {
        let row = state.height - 1
        let layout = inputLayout(state)
        grid.put(layout.label, row: row, column: 0, limit: layout.column, style: CellStyle(bold: true))
        let window = state.input.window(width: layout.space)
        grid.put(window.text, row: row, column: layout.column, limit: layout.space)
        // Arrows in the gaps beside the text say more is hidden that way.
        if window.clippedLeft, layout.column > 0 { grid.put("‹", row: row, column: layout.column - 1, style: dim) }
        if window.clippedRight { grid.put("›", row: row, column: layout.column + layout.space, style: dim) }
        let counterStyle = state.input.count >= InputLine.limit ? CellStyle(foreground: .red, bold: true) : dim
        grid.put(layout.counter, row: row, column: state.width - layout.counter.count, style: counterStyle)
        return layout.column + window.cursorColumn
    }
}
