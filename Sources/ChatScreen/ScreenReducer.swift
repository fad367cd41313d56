import ChatCore
import Foundation

/// (state, event) -> (state, effects): every change to the screen goes
/// through here, so tests drive it without a terminal or a node.
///
/// Reading is what the eye saw: when a frame is on the terminal (`.drawn`)
/// the reducer asks the layout which messages it showed in full, and moves
/// the read marker over them only when no unseen message lies before them.
/// Messages arriving by catch-up, live or from a page are placed by one
/// rule: following never scrolls a message off the top before a frame
/// showed it; the view stops there, at the unread line.
public enum ScreenReducer {
    public static let pageSize = 30
    /// How long a message must be on screen in full to count as seen: long
    /// enough that a frame in the middle of a catch-up burst does not read
    /// what flashed past, short enough that following a conversation reads
    /// it as it comes.
    public static let dwell = Duration.milliseconds(500)

    public static func reduce(_ state: inout ScreenState, _ event: ScreenEvent) -> [ScreenEffect] {
        // A frame changes nothing on screen: no settling, no new frame.
        if case .drawn(let now) = event { return drawn(&state, at: now) }
        var effects: [ScreenEffect] = []
        switch event {
        case .key(let key):
            if let handled = searchKey(key, &state) { effects += handled; break }
            if scrollPanel(key, &state) { break }
            if state.panel != nil, key != .enter || state.input.text.isEmpty {
                state.panel = nil  // any key closes the panel; Enter still sends typed text
                if key == .escape { state.memory.legendOpen = false; break }
            }
            effects += handle(key, &state)
            // `/read` moved the marker: the screen's own idea of it follows.
            for case .markRead(let room, let cursor) in effects where room == state.view?.room { state.view?.marked(upTo: cursor) }
        case .resize(let width, let height):
            state.width = max(1, width)
            state.height = max(1, height)
        case .rooms(let list):
            state.side.replace(list.map { entry in
                var entry = entry
                entry.online = entry.room.peer.map { state.peers[$0] != nil } ?? false
                if entry.room.peer.map({ state.peers[$0] != nil }) == true { entry.stage = state.peers[entry.room.peer!]! }
                return entry
            }, grouping: state.grouping, filter: state.filter, keep: state.view?.room)
        case .opened(let page, let title):
            state.opening = nil
            state.searchHit = nil
            let shown = state.shown(page) { $0.senderNickname }
            state.view = RoomView(page: page, title: title, me: state.me, shown: shown)
            state.view?.hiddenByFilter = page.messages.count - shown.count
            noteMentions(shown, in: page.room, &state)
            state.side.reveal(page.room, height: state.sideRows)
            if let warning = state.keyNotices[page.room] { state.notice = warning }
        case .pageLoaded(let page, let direction):
            guard state.view?.room == page.room else { break }
            let shown = state.shown(page) { $0.senderNickname }
            state.view?.add(page, direction, shown: shown)
            state.view?.hiddenByFilter += page.messages.count - shown.count
            noteMentions(shown, in: page.room, &state)
        case .message(let message, let name, let roomTitle):
            effects += arrived(message, name: name, roomTitle: roomTitle, &state)
        case .delivery(let id, let delivery):
            state.view?.delivery[id] = delivery
        case .unread(let room, let count):
            state.side.update(room) { $0.unread = count }
            if count == 0 { state.mentions[room] = nil }
        case .peers(let peers):
            state.peers = peers
            for room in state.side.entries.keys {
                guard let peer = room.peer else { continue }
                state.side.update(room) {
                    $0.online = peers[peer] != nil
                    if let stage = peers[peer] { $0.stage = stage }
                }
            }
        case .identity(let name, let fingerprint, let groupSecret):
            state.myName = name
            state.fingerprint = fingerprint
            state.groupSecret = groupSecret
        case .notice(let text):
            state.notice = TerminalText.sanitize(text)
        case .panel(let lines):
            state.panel = lines.map(TerminalText.sanitize)
        case .panelFromEnd(let lines):
            state.panel = lines.map(TerminalText.sanitize)
            state.panelTop = .max  // the renderer and scrolling hold it to the last page
        case .drawn:
            break  // handled above
        case .searchResults(let query, let items, let hasMore, let first):
            searchLoaded(query: query, items: items, hasMore: hasMore, first: first, &state)
        case .openedAround(let page, let title, let cursor):
            openedAround(page, title: title, at: cursor, &state)
        case .keyChanged(let room, let notice):
            keyChanged(room, notice: notice, &state)
        case .verified(let numbers):
            verified(numbers, &state)
        case .fileLine(let room, let line):
            fileLine(line, in: room, &state)
        }
        // Only arrivals push messages up; a key that scrolls is the reader's own move.
        switch event {
        case .message(let message, _, _) where message.room == state.view?.room: state.view?.unsettledArrivals = true
        case .pageLoaded: state.view?.unsettledArrivals = true
        default: break
        }
        // Events that leave the open room as it was (a message elsewhere, a
        // count, the list, a notice) keep its settled layout: a busy LAN's
        // messages to other rooms cost no layout of this one.
        if state.settledLayout != nil, leavesOpenRoomAsItWas(event, state) { return effects }
        effects += settle(&state)
        return effects
    }

    private static func arrived(_ message: Message, name: String, roomTitle: String?, _ state: inout ScreenState) -> [ScreenEffect] {
        if message.room == .publicRoom && !state.filter.matches(stage: message.senderStage) {
            if state.view?.room == message.room { state.view?.hiddenByFilter += 1 }
            return []
        }
        let isOwn = message.senderNumber == state.me
        let open = state.view?.room == message.room
        state.side.touch(
            message.room, at: message.sentAt, title: roomTitle ?? title(for: message, name: name, isOwn: isOwn, state),
            unreadDelta: isOwn ? 0 : 1, grouping: state.grouping, filter: state.filter, keep: state.view?.room)
        if let peer = message.room.peer {
            let online = state.peers[peer] != nil
            state.side.update(message.room) { $0.online = online }
        }
        var effects: [ScreenEffect] = []
        if AttentionRule.wants(message, me: state.me, myName: state.myName) {
            if message.room.peer == nil { state.mentions[message.room, default: []].append(message.cursor) }
            if state.bell { effects.append(.ring) }
        }
        if open {
            let shown = state.shown(message, name: name)
            // Following the conversation: stay with its newest message.
            if state.view?.place(shown) == .appendAndFollow { state.view?.anchor = .bottom }
        }
        return effects
    }

    /// Whether `event` changed nothing the open room's layout depends on
    /// (its messages, anchor, delivery states, size). A panel is not kept:
    /// settling is what notices it closed.
    private static func leavesOpenRoomAsItWas(_ event: ScreenEvent, _ state: ScreenState) -> Bool {
        guard state.panel == nil else { return false }
        switch event {
        case .message(let message, _, _): return message.room != state.view?.room && message.room != state.opening
        case .unread, .rooms, .peers, .identity, .notice: return true
        default: return false
        }
    }

    /// Unread mentions on a page from the store count like live ones (the
    /// store does not keep which unread messages name the reader, so a
    /// room shows its stored mentions once a page of it was loaded).
    private static func noteMentions(_ shown: [ShownMessage], in room: RoomID, _ state: inout ScreenState) {
        guard room.peer == nil, let view = state.view else { return }
        let unread = shown.filter { item in item.highlight && (view.readMarker.map { item.cursor > $0 } ?? true) }.map(\.cursor)
        guard !unread.isEmpty else { return }
        let known = Set(state.mentions[room] ?? [])
        state.mentions[room, default: []] += unread.filter { !known.contains($0) }
    }

    /// A DM room is named after the peer, also when our own message opened it.
    private static func title(for message: Message, name: String, isOwn: Bool, _ state: ScreenState) -> String {
        guard let peer = message.room.peer else { return "public" }
        if !isOwn { return name }
        if let view = state.view, view.room == message.room { return view.title }
        return state.side[message.room]?.title ?? "#" + peer.shortTag  // never the 16-digit number
    }

    /// After any change: pin to the bottom when the run ends on screen,
    /// stop following before a message no frame showed would scroll off,
    /// and fetch the next page when the reader reached the loaded edge.
    private static func settle(_ state: inout ScreenState) -> [ScreenEffect] {
        state.settledLayout = nil
        guard var view = state.view, state.panel == nil, state.search == nil, state.messageRows > 0 else { return [] }
        let arrived = view.unsettledArrivals
        view.unsettledArrivals = false
        var effects: [ScreenEffect] = []
        var layout = RoomLayout(view: view, width: state.roomWidth, height: state.messageRows)
        if case .top = view.anchor, layout.reachesEnd, !layout.pinned, !view.window.hasMoreAfter {
            // The reader's own scrolling got here: what they passed over is
            // theirs to have skipped, so following does not pull back to it.
            if arrived { view.followAgain() } else { view.reachedBottom() }
            layout = RoomLayout(view: view, width: state.roomWidth, height: state.messageRows)
        }
        if arrived, view.anchor == .bottom, let first = layout.firstFull ?? layout.lastSeen,
           let skipped = view.firstNewer(than: view.followedThrough, before: first) {
            view.stopFollowing(at: skipped)
            layout = RoomLayout(view: view, width: state.roomWidth, height: state.messageRows)
            // What lies below the screen is new to the reader.
            let below = (layout.lastSeen.map { $0 + 1 } ?? 0)..<view.messages.count
            view.newBelow = view.messages[below].count { !$0.isOwn }
        }
        if layout.reachesEnd, view.pending == nil, let cursor = view.window.newerPageCursor {
            view.pending = .newer
            effects.append(.loadPage(view.room, .newer, from: cursor))
        }
        if layout.reachesEnd, !view.window.hasMoreAfter { view.newBelow = 0 }
        state.view = view
        // What settling changed after `layout` (paging, counter) does not
        // move any row, so the frame can draw this layout as it is.
        state.settledLayout = layout
        return effects
    }

    /// A frame is on the terminal: the messages it has shown in full for
    /// `dwell` were seen. The marker moves over them only if none unseen
    /// lies before the first (it never jumps a gap the reader was not shown).
    private static func drawn(_ state: inout ScreenState, at now: Duration) -> [ScreenEffect] {
        guard var view = state.view, state.panel == nil, state.search == nil, ScreenRenderer.drawsRoom(state),
              let layout = state.layout, let first = layout.firstFull, let last = layout.lastSeen, first <= last else {
            state.view?.shownSince = [:]  // nothing in view: sight starts over
            return []
        }
        var effects: [ScreenEffect] = []
        if let seen = view.sighted(first, last, at: now, dwell: dwell) {
            let newest = view.messages[seen].cursor
            if view.markedUpTo.map({ newest > $0 }) ?? true, !view.unseen(before: first) {
                view.marked(upTo: newest)
                effects.append(.markShown(view.room, from: view.messages[first].cursor, upTo: newest))
                // Mentions read now no longer call for attention.
                if let pending = state.mentions[view.room] {
                    let left = pending.filter { $0 > newest }
                    state.mentions[view.room] = left.isEmpty ? nil : left
                }
            }
        }
        state.view = view
        return effects
    }
}
