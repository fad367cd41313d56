import ChatCore

/// The input line's keys, readline's: moves, deletes, kills and yank,
/// history, Tab completion, and pasted text kept for the reader to send.
extension ScreenReducer {
    /// Performs `key` if it edits the line; nil for any other key.
    static func edit(_ key: ScreenKey, _ state: inout ScreenState) -> [ScreenEffect]? {
        switch key {
        case .text(let typed):
            insert(TerminalText.sanitize(typed), &state)
        case .paste(let pasted):
            paste(pasted, &state)
        case .alt(.enter):
            insert("\n", &state)
        case .backspace: state.input.deleteBackward()
        case .delete: state.input.deleteForward()
        case .left, .control("b"): state.input.moveLeft()
        case .right, .control("f"): state.input.moveRight()
        case .home, .control("a"): state.input.moveHome()
        case .end, .control("e"): state.input.moveEnd()
        case .alt(.text("b")), .ctrl(.left): state.input.moveWordLeft()
        case .alt(.text("f")), .ctrl(.right): state.input.moveWordRight()
        case .control("k"): state.memory.kill.kill(state.input.killToEnd(), backward: false)
        case .control("u"): state.memory.kill.kill(state.input.killToStart(), backward: true)
        case .control("w"): state.memory.kill.kill(state.input.killBigWordBackward(), backward: true)
        case .alt(.backspace): state.memory.kill.kill(state.input.killWordBackward(), backward: true)
        case .alt(.text("d")): state.memory.kill.kill(state.input.killWordForward(), backward: false)
        case .control("y"): insert(state.memory.kill.text, &state)
        case .control("t"): state.input.transpose()
        case .alt(.text("r")):
            // weechat's "delete the whole line"; what goes can be put back.
            state.input.moveEnd()
            state.memory.kill.kill(state.input.killToStart(), backward: true)
        case .up:
            if let line = state.memory.history.older(room: historyRoom(state), current: state.input.text) { state.input.set(line) }
        case .down:
            if let line = state.memory.history.newer(room: historyRoom(state)) { state.input.set(line) }
        default:
            return nil
        }
        return []
    }

    static func isKill(_ key: ScreenKey) -> Bool {
        switch key {
        case .control("k"), .control("u"), .control("w"), .alt(.backspace), .alt(.text("d")), .alt(.text("r")): true
        default: false
        }
    }

    /// Inserts at the cursor, one grapheme at a time so a run that does
    /// not fit still puts in what does.
    static func insert(_ text: String, _ state: inout ScreenState) {
        guard !text.isEmpty else { return }
        if state.input.insert(text) { return }
        for character in text where !state.input.insert(String(character)) {
            state.notice = "message limit is \(InputLine.limit) characters"
            break
        }
    }

    /// A paste goes into the line, never out: its line ends stay (shown as
    /// ↵) and Enter sends it all as one message once the reader has seen it.
    static func paste(_ pasted: String, _ state: inout ScreenState) {
        var lines = pasted.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.sanitize(String($0)) }
        while lines.count > 1, lines.last?.trimmingWhitespace().isEmpty == true { lines.removeLast() }
        insert(lines.joined(separator: "\n"), &state)
        if lines.count > 1, state.notice == nil || state.notice?.hasPrefix("pasted") == true {
            state.notice = "pasted \(lines.count) lines (↵): Enter sends them as one message, Ctrl-U drops them"
        }
    }

    /// Tab: completes the word before the cursor, or moves to the next
    /// match when the last key completed.
    static func complete(by step: Int, _ state: inout ScreenState) -> [ScreenEffect] {
        if var completion = state.memory.completion, completion.continues(state.input) {
            completion.cycle(by: step)
            state.input = completion.result
            state.memory.completion = completion
            return []
        }
        let files = state.view.flatMap { state.fileLines[$0.room] } ?? []
        guard let completion = TabCompletion.begin(state.input, names: completionNames(state), stages: completionStages(state),
                                                    offers: files.reversed().filter(\.pendingOffer).map(\.shortID),
                                                    transfers: files.reversed().map(\.shortID),
                                                    paths: state.listPaths) else {
            state.memory.completion = nil
            return []
        }
        state.input = completion.result
        state.memory.completion = completion
        if completion.candidates.count > 1 {
            state.notice = "Tab: " + completion.candidates.prefix(8).joined(separator: " ") + (completion.candidates.count > 8 ? " …" : "")
        }
        return []
    }

    /// Who can be named: the open room's speakers, newest first, then the
    /// peers of the list. Names are sanitized where they came in.
    static func completionNames(_ state: ScreenState) -> [String] {
        var names: [String] = []
        if let view = state.view {
            // A verified speaker's name carries " ✓": completed without it.
            let mark = " " + ScreenState.verifiedMark
            for shown in view.messages.reversed() where !shown.isOwn {
                names.append(shown.name.hasSuffix(mark) ? String(shown.name.dropLast(mark.count)) : shown.name)
            }
        }
        for room in listedRooms(state) where room.peer != nil {
            if let title = state.side[room]?.title { names.append(title) }
        }
        var seen = Set<String>()
        return names.filter { !$0.isEmpty && !$0.contains(" ") && seen.insert($0).inserted }
    }

    static func completionStages(_ state: ScreenState) -> [String] {
        Array(Set(state.peers.values.compactMap { $0 })).sorted()
    }
}
