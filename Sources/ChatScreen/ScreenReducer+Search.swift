import ChatCore

/// `/search` in the full-screen client: the results list over the room,
/// its keys, and opening a result's room around it.
extension ScreenReducer {
    /// Rows the results list has for items (title and hint rows aside).
    static func searchRows(_ state: ScreenState) -> Int { max(1, state.messageRows - 2) }

    /// Keys while the results list is shown, and Ctrl-R (weechat's search
    /// key) on an empty input line: reopens the last results, or starts a
    /// `/search ` line. nil: the key is not the list's.
    static func searchKey(_ key: ScreenKey, _ state: inout ScreenState) -> [ScreenEffect]? {
        guard var list = state.search else {
            guard key == .control("r"), state.input.text.isEmpty else { return nil }
            if let last = state.lastSearch {
                state.search = last
            } else {
                for character in "/search " { _ = state.input.insert(String(character)) }
            }
            return []
        }
        var effects: [ScreenEffect] = []
        let rows = searchRows(state)
        switch key {
        case .up, .control("p"): list.move(by: -1, rows: rows)
        case .down, .control("n"), .tab: list.move(by: 1, rows: rows)
        case .pageUp: list.move(by: -rows, rows: rows)
        case .pageDown: list.move(by: rows, rows: rows)
        case .home: list.move(by: -list.items.count, rows: rows)
        case .end: list.move(by: list.items.count, rows: rows)
        case .enter:
            state.lastSearch = list
            state.search = nil
            guard let item = list.selectedItem else { return [] }
            state.opening = item.room
            state.side.reveal(item.room, height: state.sideRows)
            return [.openAround(item.room, item.cursor)]
        case .escape, .control("r"), .control("c"), .control("g"):
            state.lastSearch = list
            state.search = nil
            return []
        default:
            return []  // typing waits until the list is closed
        }
        // Near the end of what is loaded: ask for the next page once.
        if list.hasMore, !list.loading, list.selected >= list.items.count - 3 {
            list.loading = true
            effects.append(.command("/search"))
        }
        state.search = list
        return effects
    }

    /// A page of results: a new list (`first == 1`) or the next page of the
    /// one shown.
    static func searchLoaded(query: String, items: [SearchList.Item], hasMore: Bool, first: Int, _ state: inout ScreenState) {
        state.panel = nil
        if first > 1, var list = state.search ?? state.lastSearch, list.items.count + 1 == first {
            list.append(items, hasMore: hasMore)
            state.search = list
            return
        }
        state.search = SearchList(query: query, items: items, hasMore: hasMore)
    }

    /// A result's room, opened on the page around it: the result sits near
    /// the top of the screen, and paging works both ways from there. What
    /// the eye sees here is read as anywhere (`.drawn`); the store keeps the
    /// marker where it is while unseen messages lie before this page.
    static func openedAround(_ page: HistoryPage, title: String, at cursor: HistoryCursor, _ state: inout ScreenState) {
        state.opening = nil
        let shown = state.shown(page) { $0.senderNickname }
        var view = RoomView(page: page, title: title, me: state.me, shown: shown)
        if let index = view.messages.firstIndex(where: { $0.cursor >= cursor }) { view.leftBottom(top: max(0, index - 2)) }
        view.hiddenByFilter = page.messages.count - shown.count
        state.view = view
        state.searchHit = cursor
        state.side.reveal(page.room, height: state.sideRows)
    }
}
