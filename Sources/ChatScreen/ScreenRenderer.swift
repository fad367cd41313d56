import ChatCore

/// Draws a `ScreenState` into a `ScreenGrid`: side list | room, a status
/// line, and the input line at the bottom. Pure; one call is one frame.
public enum ScreenRenderer {
    public struct Frame: Hashable, Sendable {
        public var grid: ScreenGrid
        /// Where the terminal's cursor goes (the end of the input).
        public var cursorRow: Int
        public var cursorColumn: Int
    }

    static let header = CellStyle(foreground: .white, background: .blue, bold: true)
    static let status = CellStyle(foreground: .black, background: .cyan)
    static let dim = CellStyle(dim: true)
    static let groupTitle = CellStyle(foreground: .yellow, bold: true)
    static let badge = CellStyle(foreground: .white, background: .red, bold: true)
    /// Rooms holding a DM or a mention, and the name on a message naming
    /// the reader (weechat's highlight colours: apart from plain unread).
    static let highlight = CellStyle(foreground: .black, background: .yellow, bold: true)
    static let selected = CellStyle(reverse: true)
    static let unreadLine = CellStyle(foreground: .red, bold: true)
    static let indicator = CellStyle(foreground: .black, background: .yellow, bold: true)
    static let nameColors: [CellColor] = [.cyan, .magenta, .yellow, .blue, .red]

    /// Below this size only "terminal too small" is drawn.
    public static func drawsRoom(_ state: ScreenState) -> Bool { state.width >= 20 && state.height >= 5 }

    public static func render(_ state: ScreenState) -> Frame {
        var grid = ScreenGrid(width: state.width, height: state.height)
        let cursor = render(state, into: &grid)
        return Frame(grid: grid, cursorRow: cursor.row, cursorColumn: cursor.column)
    }

    /// Draws into `grid`, reusing its cells when the size still matches;
    /// returns where the cursor goes.
    public static func render(_ state: ScreenState, into grid: inout ScreenGrid) -> (row: Int, column: Int) {
        if grid.width == state.width && grid.height == state.height { grid.clear() } else { grid = ScreenGrid(width: state.width, height: state.height) }
        guard drawsRoom(state) else {
            grid.put("terminal too small", row: 0, column: 0)
            return (0, 0)
        }
        if state.sideWidth > 0 {
            drawSide(state, into: &grid)
            for row in 0..<(state.height - 2) { grid.put("│", row: row, column: state.sideWidth, style: dim) }
        }
        drawRoom(state, into: &grid)
        drawStatus(state, into: &grid)
        let cursor = drawInput(state, into: &grid)
        return (state.height - 1, cursor)
    }

    static func drawSide(_ state: ScreenState, into grid: inout ScreenGrid) {
        let width = state.sideWidth
        grid.fill(row: 0, to: width, style: header)
        grid.put(" Chats · \(TerminalText.sanitize(state.filter.description))", row: 0, column: 0, limit: width, style: header)
        let open = state.opening ?? state.view?.room
        let rows = state.side.rows
        var y = 1
        var index = state.side.top
        while y < state.sideRows + 1, index < rows.count {
            switch rows[index] {
            case .header(let title):
                grid.put(title, row: y, column: 1, limit: width - 1, style: groupTitle)
            case .room(let room):
                guard let entry = state.side[room] else { break }
                let style = room == open ? selected : CellStyle.plain
                grid.fill(row: y, to: width, style: style)
                let mark = room == .publicRoom ? "#" : (entry.online ? "●" : "○")
                var markStyle = style
                markStyle.foreground = entry.online ? .green : (room == .publicRoom ? .standard : .gray)
                grid.put(mark, row: y, column: 1, style: markStyle)
                // "!" marks a room with something for the reader, as its colour does.
                let highlighted = state.highlights(in: room) > 0
                let count = entry.unread > 999 ? "999+" : String(entry.unread)
                let badgeText = entry.unread > 0 ? (highlighted ? " !\(count) " : " \(count) ") : ""
                let nameLimit = width - 3 - badgeText.count
                let verified = room.peer.map { state.verified.contains($0) } == true ? " " + ScreenState.verifiedMark : ""
                grid.put(entry.title + verified, row: y, column: 3, limit: nameLimit, style: style)  // sanitized on entry
                if !badgeText.isEmpty { grid.put(badgeText, row: y, column: width - badgeText.count, style: highlighted ? highlight : badge) }
            }
            y += 1
            index += 1
        }
    }

    static func drawRoom(_ state: ScreenState, into grid: inout ScreenGrid) {
        let x = state.roomColumn, width = state.roomWidth
        grid.fill(row: 0, from: x, style: header)
        let open = state.opening ?? state.view?.room
        var title = open.map { " " + state.label($0) } ?? " lanchat"
        if let room = open, let peer = room.peer {
            if state.verified.contains(peer) { title += " " + ScreenState.verifiedMark }
            title += state.peers[peer] != nil ? " · online" : " · offline"
            if state.keyNotices[room] != nil { title += " · ⚠ key changed" }
        }
        if room(state) == .publicRoom { title += " · \(state.peers.count) linked" }
        if state.opening != nil { title += " · loading…" }
        grid.put(title, row: 0, column: x, limit: width, style: header)
        // A panel or the search list covers the messages, not the file
        // lines under them: an offer waiting for an answer stays in view.
        if let search = state.search {
            SearchResultsView.draw(search, state: state, into: &grid)
            drawFileLines(state, into: &grid)
            return
        }
        if state.panel != nil {
            let (rows, maxTop) = PanelLayout.extent(state)
            let top = min(state.panelTop, maxTop), visible = PanelLayout.visibleRows(state)
            for (offset, row) in rows.dropFirst(top).prefix(visible).enumerated() {
                grid.put(row, row: 1 + offset, column: x + 1, limit: width - 1)
            }
            let footer = maxTop == 0 ? "(any key closes)"
                : "(↑↓ PgUp PgDn scroll, any other key closes) \(top + 1)-\(min(rows.count, top + visible)) of \(rows.count)"
            grid.put(footer, row: state.messageRows, column: x + 1, limit: width - 1, style: dim)
            drawFileLines(state, into: &grid)
            return
        }
        guard let view = state.view, let layout = state.layout else { return }
        if view.messages.isEmpty {
            grid.put(emptyRoomText(state, view), row: 1, column: x + 1, limit: width - 1, style: dim)
        }
        for (offset, row) in layout.rows.enumerated() {
            let y = 1 + layout.topPadding + offset
            switch row {
            case .dayHeader(let day):
                centered("── \(ShownMessage.dayTitle(day, language: state.language)) ──", row: y, x: x, width: width, style: dim, into: &grid)
            case .beginning:
                centered(state.language == .korean ? "── 대화의 시작 ──" : "── beginning of the conversation ──", row: y, x: x, width: width, style: dim, into: &grid)
            case .unreadLine:
                centered(state.language == .korean ? "── 여기까지 읽음 · unread ──" : "── unread ──", row: y, x: x, width: width, style: unreadLine, into: &grid)
            case .message(let index, let line):
                drawMessage(view.messages[index], line: line, body: layout.bodies[index] ?? [], row: y, state: state, into: &grid)
            }
        }
        SearchResultsView.markHit(state, layout: layout, into: &grid)
        drawFileLines(state, into: &grid)
        if view.newBelow > 0 {
            let text = state.language == .korean ? " 새 메시지 \(view.newBelow) ↓ " : " \(view.newBelow) new ↓ "
            grid.put(text, row: state.messageRows, column: x + width - DisplayWidth.of(text) - 1, style: indicator)
        }
    }

    private static func room(_ state: ScreenState) -> RoomID? { state.opening ?? state.view?.room }

    /// The newest file lines, wrapped, under the messages (`ScreenState.fileLineRows`).
    static func drawFileLines(_ state: ScreenState, into grid: inout ScreenGrid) {
        let rows = state.fileLineRows
        let top = state.height - 2 - rows.count
        for (offset, row) in rows.enumerated() {
            grid.put(row.text, row: top + offset, column: state.roomColumn + 1, limit: state.roomWidth - 1,
                     style: row.line.pendingOffer ? indicator : dim)
        }
    }

    /// An empty room says why: nothing written yet, or the filter hides
    /// what there is (never "no messages yet" over hidden ones).
    static func emptyRoomText(_ state: ScreenState, _ view: RoomView) -> String {
        guard view.hiddenByFilter > 0 else { return "no messages yet — type one below" }
        let count = view.hiddenByFilter
        let more = view.window.hasMoreBefore ? " loaded (older ones too, maybe)" : ""
        return "filter \(TerminalText.sanitize(state.filter.description)) hides \(count) message\(count == 1 ? "" : "s")\(more) · /filter all shows them"
    }

    static func drawMessage(_ shown: ShownMessage, line: Int, body: [Substring], row: Int, state: ScreenState, into grid: inout ScreenGrid) {
        let x = state.roomColumn, width = state.roomWidth
        let textX = x + RoomLayout.timeColumns
        guard line < body.count else { return }
        var text = body[line]
        if line == 0 {
            grid.put(shown.time, row: row, column: x, style: dim)
            let color = shown.isOwn ? CellColor.green : nameColors[Int(shown.message.senderNumber.rawValue % UInt64(nameColors.count))]
            let nameStyle = shown.highlight ? highlight : CellStyle(foreground: color, bold: true)
            let nameWidth = grid.put(shown.name, row: row, column: textX, limit: width - RoomLayout.timeColumns, style: nameStyle)
            text = text.dropFirst(shown.name.count)
            grid.put(String(text), row: row, column: textX + nameWidth, limit: width - RoomLayout.timeColumns - nameWidth)
        } else {
            grid.put(String(text), row: row, column: textX, limit: width - RoomLayout.timeColumns)
        }
        // Own DMs end with their delivery state, dimmed (red when failed).
        if line == body.count - 1, shown.isOwn, let delivery = state.view?.delivery[shown.message.id] {
            let suffix = "(\(delivery.rawValue))"
            let used = DisplayWidth.of(String(line == 0 ? body[0] : text))
            let start = textX + used - suffix.count
            if start >= textX {
                grid.put(suffix, row: row, column: start, style: delivery == .failed ? CellStyle(foreground: .red) : dim)
            }
        }
    }

    static func centered(_ text: String, row: Int, x: Int, width: Int, style: CellStyle, into grid: inout ScreenGrid) {
        let textWidth = DisplayWidth.of(text)
        grid.put(text, row: row, column: x + max(0, (width - textWidth) / 2), limit: width, style: style)
    }

    static func drawStatus(_ state: ScreenState, into grid: inout ScreenGrid) {
        let row = state.height - 2
        grid.fill(row: row, style: status)
        var parts = [TerminalText.sanitize(state.myName) + "#" + state.me.shortTag]
        // No room for the list: its unread counts go here, by kind.
        if state.sideWidth == 0 { parts.append(unreadSummary(state)) }
        parts.append("\(state.peers.count) linked")
        if let fingerprint = state.fingerprint { parts.append("key " + TerminalText.sanitize(fingerprint)) }
        if let secret = state.groupSecret { parts.append(secret ? "secret on" : "secret off") }
        parts.append("filter \(TerminalText.sanitize(state.filter.description))")
        let left = " " + parts.joined(separator: " │ ")
        let used = grid.put(left, row: row, column: 0, style: status)
        if let notice = state.notice {
            grid.put(" │ " + notice, row: row, column: used, style: CellStyle(foreground: .black, background: .cyan, bold: true))
        }
    }

    /// "unread #12 @3 !2": public, DMs, and those wanting attention
    /// (DMs and mentions), for terminals too narrow for the list.
    static func unreadSummary(_ state: ScreenState) -> String {
        let publicUnread = state.side.publicUnread, directUnread = state.side.directUnread
        let highlights = state.totalHighlights
        guard publicUnread + directUnread > 0 else { return "all read" }
        let parts = [(publicUnread, "#"), (directUnread, "@"), (highlights, "!")].filter { $0.0 > 0 }.map { "\($0.1)\($0.0)" }
        return "unread " + parts.joined(separator: " ")
    }
}
