import ChatCore

/// Which rows of the open room show what, for a given size: the renderer
/// draws it and the reducer reads it to know what the eye saw.
public struct RoomLayout: Hashable, Sendable {
    public enum Row: Hashable, Sendable {
        /// Above the room's oldest message, once it is loaded.
        case beginning
        case dayHeader(Int)
        case unreadLine
        /// Line `line` of `messages[index]`.
        case message(index: Int, line: Int)
    }

    public var rows: [Row] = []
    /// The wrapped body of each message on screen, by index.
    public var bodies: [Int: [Substring]] = [:]
    /// Newest message whose last line is on screen.
    public var lastSeen: Int?
    public var firstShown: Int?
    /// Oldest message drawn in full (its first and last line on screen).
    public var firstFull: Int?
    /// The view shows the newest loaded message in full.
    public var reachesEnd = false
    /// Everything from the anchor on fits, so the run is drawn against the
    /// bottom instead (the anchor is kept for when the screen shrinks).
    public var pinned = false
    /// Blank rows above the first one when the whole run is shorter than
    /// the screen: chat sits next to the input line.
    public var topPadding = 0

    /// Columns before the text: "HH:mm ".
    public static let timeColumns = 6

    public init(view: RoomView, width: Int, height: Int) {
        guard height > 0, width > 0, !view.messages.isEmpty else { reachesEnd = true; return }
        let messages = view.messages
        let unreadIndex = view.unreadLineIndex
        func block(_ index: Int) -> [Row] {
            var block: [Row] = []
            if index == 0 && !view.window.hasMoreBefore { block.append(.beginning) }
            if index == 0 || messages[index - 1].day != messages[index].day { block.append(.dayHeader(messages[index].day)) }
            if index == unreadIndex { block.append(.unreadLine) }
            let body = Self.body(messages[index], width: width, delivery: view.delivery[messages[index].message.id])
            bodies[index] = body
            for line in body.indices { block.append(.message(index: index, line: line)) }
            return block
        }
        var top: Int
        switch view.anchor {
        case .bottom: top = messages.count
        case .top(let index): top = min(max(0, index), messages.count - 1)
        }
        if top < messages.count {
            // Forward from the anchor; if the run ends before the screen is
            // full and nothing newer exists, pin to the bottom instead.
            var index = top
            while index < messages.count && rows.count < height {
                rows += block(index)
                index += 1
            }
            if rows.count < height && !view.window.hasMoreAfter { top = messages.count; rows = []; bodies = [:]; pinned = true }
        }
        if top == messages.count {
            var index = messages.count - 1
            while index >= 0 && rows.count < height {
                rows.insert(contentsOf: block(index), at: 0)
                index -= 1
            }
            if rows.count > height { rows.removeFirst(rows.count - height) }
        }
        if rows.count > height { rows.removeLast(rows.count - height) }
        topPadding = height - rows.count
        var started: Int?  // the message whose first line was drawn last
        for row in rows {
            guard case .message(let index, let line) = row else { continue }
            if firstShown == nil { firstShown = index }
            if line == 0 { started = index }
            if line == (bodies[index]?.count ?? 1) - 1 {
                lastSeen = index
                // Rows are contiguous: first and last line drawn is the whole message.
                if firstFull == nil, started == index { firstFull = index }
            }
        }
        reachesEnd = lastSeen == messages.count - 1
    }

    /// The message's text wrapped beside its time column, the first line
    /// after "name: ", with the delivery state of own DMs at the end.
    static func body(_ shown: ShownMessage, width: Int, delivery: DeliveryState?) -> [Substring] {
        let textWidth = max(1, width - timeColumns)
        guard shown.isOwn, let delivery else {
            // Most messages fit on one line: no wrapping walk.
            if shown.bodyWidth <= textWidth { return [Substring(shown.body)] }
            return TextWrap.lines(shown.body, first: textWidth, rest: textWidth)
        }
        return TextWrap.lines(shown.body + " (\(delivery.rawValue))", first: textWidth, rest: textWidth)
    }
}
