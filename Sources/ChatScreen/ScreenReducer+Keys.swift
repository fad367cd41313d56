import ChatCore

extension ScreenReducer {
    static func handle(_ key: ScreenKey, _ state: inout ScreenState) -> [ScreenEffect] {
        switch key {
        case .text(let typed):
            let clean = TerminalText.sanitize(typed)
            var refused = false
            for character in clean where !state.input.insert(String(character)) { refused = true; break }
            if refused { state.notice = "message limit is \(InputLine.limit) characters" }
        case .backspace:
            state.input.deleteBackward()
        case .enter:
            return submit(&state)
        case .tab, .control("n"):
            return move(by: 1, &state)
        case .backTab, .control("p"):
            return move(by: -1, &state)
        case .control("c"), .control("d"):
            state.quitting = true
            return [.quit]
        case .control("l"):
            break  // the session redraws everything
        case .up: return scroll(by: -1, &state)
        case .down: return scroll(by: 1, &state)
        case .pageUp: return scroll(by: -max(1, pageStep(state)), &state)
        case .pageDown: return scroll(by: max(1, pageStep(state)), &state)
        case .home:
            if var view = state.view, !view.messages.isEmpty { view.leftBottom(top: 0); state.view = view }
            return scroll(by: -1, &state)
        case .end:
            if var view = state.view, !view.window.hasMoreAfter { view.reachedBottom(); state.view = view }
            else { return scroll(by: pageStep(state) * 4, &state) }
        case .escape, .left, .right, .control(_):
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

    static func move(by step: Int, _ state: inout ScreenState) -> [ScreenEffect] {
        guard let next = state.side.room(after: state.opening ?? state.view?.room, step: step) else { return [] }
        state.opening = next
        state.side.reveal(next, height: state.sideRows)
        return [.open(next)]
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
