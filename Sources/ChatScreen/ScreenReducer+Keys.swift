import ChatCore

/// Keys, as weechat lays them out: the input line edits like readline,
/// PgUp/PgDn (and Alt/Ctrl variants) scroll the room, Alt/Ctrl keys move
/// between conversations. `KeyLegend` lists them for the reader.
extension ScreenReducer {
    static func handle(_ key: ScreenKey, _ state: inout ScreenState) -> [ScreenEffect] {
        if key != .tab && key != .backTab { state.memory.completion = nil }
        if !isKill(key) { state.memory.kill.interrupt() }
        // `reduce` closes a panel on any key before this runs.
        let legendJustClosed = state.memory.legendOpen && state.panel == nil
        state.memory.legendOpen = false
        if key == .function(1) || (key == .text("?") && state.input.text.isEmpty && !legendJustClosed) {
            if !legendJustClosed {
                state.panel = KeyLegend.lines
                state.memory.legendOpen = true
            }
            return []
        }
        if let handled = edit(key, &state) { return handled }
        switch key {
        case .enter:
            return submit(&state)
        case .tab:
            return state.input.text.isEmpty ? move(by: 1, &state) : complete(by: 1, &state)
        case .backTab:
            return state.input.text.isEmpty ? move(by: -1, &state) : complete(by: -1, &state)
        case .control("n"), .alt(.right): return move(by: 1, &state)
        case .control("p"), .alt(.left): return move(by: -1, &state)
        case .alt(.text(let letter)) where letter.count == 1 && ("0"..."9").contains(letter):
            // Alt-1 is the first conversation of the list, Alt-0 the tenth.
            let number = letter == "0" ? 10 : Int(letter)!
            return open(number: number, &state)
        case .alt(.text("a")): return nextActivity(&state)
        case .alt(.text("y")): return answerNewestOffer(accepting: true, &state)
        case .alt(.text("n")): return answerNewestOffer(accepting: false, &state)
        case .control("c"):
            state.quitting = true
            return [.quit]
        case .control("d"):
            // On an empty line Ctrl-D is end of input, as at a shell.
            guard state.input.text.isEmpty else { state.input.deleteForward(); return [] }
            state.quitting = true
            return [.quit]
        case .control("l"):
            break  // the session redraws everything
        case .pageUp: return scroll(by: -max(1, pageStep(state)), &state)
        case .pageDown: return scroll(by: max(1, pageStep(state)), &state)
        case .alt(.up), .alt(.pageUp), .ctrl(.pageUp), .ctrl(.up): return scroll(by: -1, &state)
        case .alt(.down), .alt(.pageDown), .ctrl(.pageDown), .ctrl(.down): return scroll(by: 1, &state)
        case .alt(.home), .ctrl(.home):
            if var view = state.view, !view.messages.isEmpty { view.leftBottom(top: 0); state.view = view }
            return scroll(by: -1, &state)
        case .alt(.end), .ctrl(.end):
            if var view = state.view, !view.window.hasMoreAfter { view.reachedBottom(); state.view = view }
            else { return scroll(by: pageStep(state) * 4, &state) }
        case .mouse(let event):
            return mouse(event, &state)
        default:
            break
        }
        return []
    }

    /// Messages to move for a page: those on screen, less one for context.
    static func pageStep(_ state: ScreenState) -> Int {
        guard let layout = state.layout, let first = layout.firstShown, let last = layout.lastSeen else { return 1 }
        return max(1, last - first)
    }

    static func submit(_ state: inout ScreenState) -> [ScreenEffect] {
        let line = state.input.take()
        let trimmed = line.trimmingWhitespace()
        guard !trimmed.isEmpty else { return [] }
        state.memory.history.record(trimmed, room: historyRoom(state))
        state.notice = nil
        if trimmed.hasPrefix("/") && !trimmed.hasPrefix("//") {
            if trimmed == "/quit" { state.quitting = true; return [.quit] }
            if trimmed == "/read" {
                // "Read up to here": the newest message loaded in the room.
                guard let view = state.view, let newest = view.window.newest else { return [] }
                return [.markRead(view.room, upTo: newest)]
            }
            if trimmed.hasPrefix("/filter") {
                let argument = String(trimmed.dropFirst("/filter".count)).trimmingWhitespace()
                if argument.isEmpty { state.notice = "filter: \(state.filter)"; return [] }
                guard let filter = ChatFilter(argument) else { state.notice = "filter is all, none, or a stage name"; return [] }
                state.filter = filter
                state.side.regroup(grouping: state.grouping, filter: filter, keep: state.view?.room)
                state.notice = "filter: \(TerminalText.sanitize(filter.description))"
                // Reload the open room so public messages follow the filter.
                if let room = state.view?.room { return [.open(room)] }
                return []
            }
            return [.command(trimmed)]
        }
        guard let room = state.view?.room ?? state.opening else { return [] }
        let text = trimmed.hasPrefix("//") ? String(trimmed.dropFirst()) : trimmed
        // Sending means looking at the newest: follow again if it is loaded.
        if var view = state.view, !view.window.hasMoreAfter { view.reachedBottom(); state.view = view }
        return [.send(text, to: room)]
    }

    /// The room whose input history Up/Down walk.
    static func historyRoom(_ state: ScreenState) -> RoomID {
        state.opening ?? state.view?.room ?? .publicRoom
    }

    static func move(by step: Int, _ state: inout ScreenState) -> [ScreenEffect] {
        guard let next = state.side.room(after: state.opening ?? state.view?.room, step: step) else { return [] }
        return open(next, &state)
    }

    /// Opens `room`, showing it selected in the list at once.
    static func open(_ room: RoomID, _ state: inout ScreenState) -> [ScreenEffect] {
        state.opening = room
        state.memory.history.stopBrowsing()
        state.side.reveal(room, height: state.sideRows)
        return [.open(room)]
    }

    /// The conversations of the list, in its order.
    static func listedRooms(_ state: ScreenState) -> [RoomID] {
        state.side.rows.compactMap { if case .room(let id) = $0 { id } else { nil } }
    }

    static func open(number: Int, _ state: inout ScreenState) -> [ScreenEffect] {
        let rooms = listedRooms(state)
        guard number >= 1, number <= rooms.count else {
            state.notice = "no conversation \(number) (the list has \(rooms.count))"
            return []
        }
        return open(rooms[number - 1], &state)
    }

    /// Alt-A: the next conversation after this one with unread messages,
    /// in weechat's order: those wanting attention (a mention or a DM:
    /// "!N" in the list) first, then direct ones, then the rest.
    static func nextActivity(_ state: inout ScreenState) -> [ScreenEffect] {
        let rooms = listedRooms(state)
        let current = state.opening ?? state.view?.room
        let start = current.flatMap { rooms.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        let order = Array(rooms[min(start, rooms.count)...] + rooms[..<min(start, rooms.count)])
        let active = order.filter { $0 != current && (state.side[$0]?.unread ?? 0) > 0 }
        let next = active.first { state.highlights(in: $0) > 0 } ?? active.first { $0.peer != nil } ?? active.first
        guard let next else {
            state.notice = "no other conversation has unread messages"
            return []
        }
        return open(next, &state)
    }

    /// Scrolls by whole messages. Reaching the top of the loaded run asks
    /// for the older page; reaching its bottom, for the newer one (settle).
    static func scroll(by step: Int, _ state: inout ScreenState) -> [ScreenEffect] {
        guard var view = state.view, !view.messages.isEmpty, let layout = state.layout else { return [] }
        var effects: [ScreenEffect] = []
        let top: Int
        switch view.anchor {
        case .top(let index): top = index
        case .bottom: top = layout.firstShown ?? max(0, view.messages.count - 1)
        }
        if step < 0 {
            let target = top + step
            if target < 3, view.pending == nil, let cursor = view.window.olderPageCursor {
                view.pending = .older
                effects.append(.loadPage(view.room, .older, from: cursor))
            }
            view.leftBottom(top: max(0, target))
        } else {
            if layout.reachesEnd && !view.window.hasMoreAfter {
                view.reachedBottom()
            } else {
                view.leftBottom(top: min(view.messages.count - 1, top + step))
            }
        }
        state.view = view
        return effects
    }
}

extension ScreenReducer {
    /// A scrolling key (arrows, PgUp/PgDn, Home/End, the wheel over the
    /// room) moves a panel taller than the room instead of closing it.
    /// False when there is no such panel or the key does not scroll: the
    /// key then closes the panel as any other.
    static func scrollPanel(_ key: ScreenKey, _ state: inout ScreenState) -> Bool {
        guard state.panel != nil else { return false }
        let maxTop = PanelLayout.extent(state).maxTop
        guard maxTop > 0 else { return false }
        let page = max(1, PanelLayout.visibleRows(state) - 1)
        let step: Int
        switch key {
        case .up: step = -1
        case .down: step = 1
        case .pageUp: step = -page
        case .pageDown: step = page
        case .home: step = -maxTop
        case .end: step = maxTop
        case .mouse(let event) where event.action == .wheelUp || event.action == .wheelDown:
            guard state.sideWidth == 0 || event.column >= state.sideWidth else { return false }
            step = event.action == .wheelUp ? -3 : 3
        default: return false
        }
        state.panelTop = min(maxTop, max(0, min(state.panelTop, maxTop) + step))
        return true
    }
}
