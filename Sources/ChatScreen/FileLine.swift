import ChatCore

/// A file transfer as a line of its DM conversation: the offer, its
/// progress, then where it was saved or why it failed. The newest few
/// show under the conversation's messages (`ScreenState.fileRows`).
public struct FileLine: Hashable, Sendable {
    /// The transfer's id (the full one `/accept-file` takes).
    public var id: String
    /// What to show, sanitized where it came in.
    public var text: String
    /// An offer to this node waiting for an answer (Alt-Y / Alt-N act on it).
    public var pendingOffer: Bool

    public init(id: String, text: String, pendingOffer: Bool) {
        self.id = id
        self.text = TerminalText.sanitize(text)
        self.pendingOffer = pendingOffer
    }

    /// What people type for it: the id's last 8 digits (the console's
    /// `/accept-file 5e0f9a11`; the first ones are a timestamp).
    public var shortID: String { String(id.suffix(8)) }

    /// Lines kept per conversation (older ones stay in `/files`).
    public static let keptPerRoom = 8
    /// Lines shown under the messages at most (each wrapped to as many
    /// rows as it needs, within `ScreenState.fileRowsCap`).
    public static let shownRows = 3
}

/// File lines and their keys.
extension ScreenReducer {
    static func fileLine(_ line: FileLine, in room: RoomID, _ state: inout ScreenState) {
        var lines = state.fileLines[room] ?? []
        if let index = lines.firstIndex(where: { $0.id == line.id }) { lines[index] = line } else { lines.append(line) }
        state.fileLines[room] = Array(lines.suffix(FileLine.keptPerRoom))
    }

    /// Alt-Y / Alt-N: answers the newest offer waiting in the open conversation.
    static func answerNewestOffer(accepting: Bool, _ state: inout ScreenState) -> [ScreenEffect] {
        guard let room = state.view?.room, let offer = state.fileLines[room]?.last(where: \.pendingOffer) else {
            state.notice = "no file offer waits in this conversation"
            return []
        }
        return [.command((accepting ? "/accept-file " : "/decline-file ") + offer.id)]
    }
}

/// One screen row of a file line: the line, and that row's text.
struct FileLineRow: Hashable, Sendable {
    var line: FileLine
    /// With its lead: the mark on a line's first row, else an indent.
    var text: String
}

extension ScreenState {
    /// Rows under the open conversation's messages that its file lines take.
    public var fileRows: Int { fileLineRows.count }

    /// Rows file lines may take: three, up to six on a tall terminal,
    /// never more than a third of the rows below the header.
    var fileRowsCap: Int { min(6, max(3, (height - 3) / 3)) }

    /// The newest file lines of the open conversation, wrapped like message
    /// text to the room's width, oldest first. Lines that no longer fit in
    /// `fileRowsCap` go (they stay in `/files`); the newest always shows.
    var fileLineRows: [FileLineRow] {
        guard let room = view?.room, let lines = fileLines[room], !lines.isEmpty, height >= 12 else { return [] }
        let cap = fileRowsCap
        // The room's first column is left blank; the mark takes two more.
        let textWidth = max(1, roomWidth - 3)
        var rows: [FileLineRow] = []
        for line in lines.suffix(FileLine.shownRows).reversed() {
            let parts = FileLine.wrapped(line.text, width: textWidth, rows: cap)
            let own = parts.enumerated().map { index, part in
                FileLineRow(line: line, text: (index == 0 ? (line.pendingOffer ? "⇣ " : "· ") : "  ") + part)
            }
            guard rows.count + own.count <= cap else { break }
            rows.insert(contentsOf: own, at: 0)
        }
        return rows
    }
}

extension FileLine {
    /// `text` wrapped to `width` in at most `rows` rows. When it needs more,
    /// graphemes go from its middle (marked "…"), the end keeping a little
    /// more: the start says who and what, the end the commands an offer
    /// names or the percentage.
    static func wrapped(_ text: String, width: Int, rows: Int) -> [Substring] {
        let whole = TextWrap.lines(text, first: width, rest: width)
        guard whole.count > rows else { return whole }
        let characters = Array(text)
        var keep = min(characters.count, rows * width)
        while keep > 1 {
            let tail = keep * 3 / 5
            let shortened = String(characters.prefix(keep - tail)) + "…" + String(characters.suffix(tail))
            let lines = TextWrap.lines(shortened, first: width, rest: width)
            if lines.count <= rows { return lines }
            keep -= max(1, width / 4)
        }
        return Array(whole.prefix(rows))
    }
}
