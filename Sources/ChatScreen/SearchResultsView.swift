import ChatCore
import Foundation

/// Draws the `/search` results list over the room area: a title row, one
/// row a result (time, room, sender, text with the match in bold), the
/// selected row in reverse, and a hint row at the bottom.
enum SearchResultsView {
    static let match = CellStyle(foreground: .yellow, bold: true)
    static let selectedMatch = CellStyle(foreground: .yellow, bold: true, reverse: true)

    static func draw(_ list: SearchList, state: ScreenState, into grid: inout ScreenGrid) {
        let x = state.roomColumn, width = state.roomWidth
        let count = list.items.count
        let title = count == 0
            ? "no messages contain \"\(list.query)\"" + (list.hasMore ? " among the newest searched" : "")
            : "\(count)\(list.hasMore ? "+" : "") result\(count == 1 && !list.hasMore ? "" : "s") for \"\(list.query)\", newest first"
        grid.put(title, row: 1, column: x + 1, limit: width - 1, style: CellStyle(bold: true))
        let rows = ScreenReducer.searchRows(state)
        for row in 0..<rows {
            let index = list.top + row
            guard index < count else { break }
            let item = list.items[index]
            let y = 2 + row
            let isSelected = index == list.selected
            let base = isSelected ? ScreenRenderer.selected : CellStyle.plain
            if isSelected { grid.fill(row: y, from: x, to: x + width, style: base) }
            var column = x + 1
            column += grid.put(item.time + " ", row: y, column: column, limit: x + width - column, style: isSelected ? base : ScreenRenderer.dim)
            column += grid.put(item.roomLabel + " ", row: y, column: column, limit: x + width - column, style: base)
            column += grid.put(item.sender + ": ", row: y, column: column, limit: x + width - column, style: CellStyle(bold: true, reverse: isSelected))
            drawText(item.text, query: list.query, row: y, column: column, end: x + width, selected: isSelected, into: &grid)
        }
        let hint = list.loading ? "loading more…" : "↑↓ choose · Enter opens the room there · Esc closes · Ctrl-R shows them again"
        grid.put(hint, row: state.messageRows, column: x + 1, limit: width - 1, style: ScreenRenderer.dim)
    }

    /// The text from the first match on when it would not fit (so the match
    /// shows), each match of the query in bold and underlined.
    static func drawText(_ text: String, query: String, row: Int, column: Int, end: Int, selected: Bool, into grid: inout ScreenGrid) {
        var rest = Substring(text)
        let space = end - column
        if let first = rest.range(of: query, options: .caseInsensitive),
           DisplayWidth.of(String(rest[..<first.upperBound])) > space {
            rest = "…" + rest[first.lowerBound...]
        }
        var x = column
        let plain = selected ? ScreenRenderer.selected : CellStyle.plain
        while x < end, !rest.isEmpty {
            guard let range = rest.range(of: query, options: .caseInsensitive) else {
                grid.put(String(rest), row: row, column: x, limit: end - x, style: plain)
                return
            }
            x += grid.put(String(rest[..<range.lowerBound]), row: row, column: x, limit: end - x, style: plain)
            x += grid.put(String(rest[range]), row: row, column: x, limit: end - x, style: selected ? selectedMatch : match)
            rest = rest[range.upperBound...]
        }
    }

    static let hit = CellStyle(foreground: .black, background: .yellow, bold: true)

    /// Marks the result the room was opened around: its time in yellow, so
    /// the eye finds it among the messages around it.
    static func markHit(_ state: ScreenState, layout: RoomLayout, into grid: inout ScreenGrid) {
        guard let cursor = state.searchHit, let view = state.view,
              let index = view.messages.firstIndex(where: { $0.cursor == cursor }) else { return }
        for (offset, row) in layout.rows.enumerated() {
            guard case .message(index, 0) = row else { continue }
            grid.put(view.messages[index].time, row: 1 + layout.topPadding + offset, column: state.roomColumn, style: hit)
        }
    }
}
