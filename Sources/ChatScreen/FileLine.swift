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

    /// Lines kept per conversation (older ones stay in `/files`).
    public static let keptPerRoom = 8
    /// Lines shown under the messages at most.
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

extension ScreenState {
    /// Rows under the open conversation's messages that its file lines take.
    public var fileRows: Int {
        guard let room = view?.room, let lines = fileLines[room], height >= 12 else { return 0 }
        return min(FileLine.shownRows, lines.count)
    }
}
