import ChatCore
import Foundation

/// Everything the full-screen client shows, as one value. `ScreenReducer`
/// changes it, `ScreenRenderer` draws it; neither does I/O.
public struct ScreenState: Sendable {
    public var width: Int
    public var height: Int
    public let me: NodeNumber
    public var myName: String
    /// The node's key fingerprint, once identities with keys exist.
    public var fingerprint: String?
    /// Whether a group secret is set; nil when the node does not say.
    public var groupSecret: Bool?
    public let grouping: ChatListGrouping
    public var side = SideList()
    public var view: RoomView?
    /// A room asked for with `.open`, not loaded yet.
    public var opening: RoomID?
    public var input = InputLine()
    /// Kill buffer, per-room history, Tab completion (ScreenReducer+Editing).
    public var memory = InputMemory()
    public var filter = ChatFilter.all
    /// Linked peers and their stages.
    public var peers: [NodeNumber: String?] = [:]
    public var notice: String?
    /// Lines shown over the room until the next key (a scrolling key
    /// scrolls one taller than the room instead).
    public var panel: [String]? { didSet { panelTop = 0 } }
    /// The panel's first row on screen (`PanelLayout`).
    public var panelTop = 0
    /// `/search` results shown over the room (ScreenReducer+Search.swift);
    /// `lastSearch` is the list Ctrl-R shows again once it was closed.
    public var search: SearchList?
    public var lastSearch: SearchList?
    /// The result a room was opened around, marked in the room until
    /// another room opens.
    public var searchHit: HistoryCursor?
    public var quitting = false
    /// Ring the terminal bell for messages that want attention.
    public var bell = true
    /// Unread messages that name the reader, by room, in arrival order
    /// (DMs count all their unread instead); dropped once read.
    public var mentions: [RoomID: [HistoryCursor]] = [:]
    /// Key-change warnings by DM room, sanitized (ScreenReducer+Trust.swift).
    public var keyNotices: [RoomID: String] = [:]
    /// Nodes whose keys the user verified: drawn with a ✓ after their name.
    public var verified: Set<NodeNumber> = []
    /// File transfers by DM conversation, oldest first (FileLine.swift).
    public var fileLines: [RoomID: [FileLine]] = [:]
    /// Completions for a path being typed (`/send NAME PATH`): the session
    /// lists the file system; tests give a fixed list.
    public var listPaths: @Sendable (String) -> [String] = { _ in [] }
    /// The open room's layout as the reducer last worked it out (every
    /// event ends with it), so a frame does not lay the room out again.
    public internal(set) var settledLayout: RoomLayout?

    public init(width: Int, height: Int, me: NodeNumber, myName: String, grouping: ChatListGrouping) {
        self.width = width
        self.height = height
        self.me = me
        self.myName = myName
        self.grouping = grouping
    }

    /// What follows a verified peer's name.
    public static let verifiedMark = "✓"

    public var language: ChatListGrouping.Language { grouping.language }
    public var calendar: Calendar { grouping.calendar }

    // The layout's fixed parts. Narrow terminals drop the side list.
    public var sideWidth: Int { width >= 60 ? min(28, width / 4) : 0 }
    /// First column of the room area.
    public var roomColumn: Int { sideWidth == 0 ? 0 : sideWidth + 1 }
    public var roomWidth: Int { max(0, width - roomColumn) }
    /// Rows for messages: all but the room header, status and input rows.
    public var messageRows: Int { max(0, height - 3 - fileRows) }
    public var sideRows: Int { max(0, height - 3) }

    /// Where the open room's messages fall right now.
    public var layout: RoomLayout? {
        if let settledLayout { return settledLayout }
        return view.map { RoomLayout(view: $0, width: roomWidth, height: messageRows) }
    }

    /// The title a room is shown under: `#public` or `@bob`.
    public func label(_ room: RoomID) -> String {
        switch room {
        case .publicRoom: return "#public"
        case .direct: return "@" + TerminalText.sanitize(side[room]?.title ?? view.flatMap { $0.room == room ? $0.title : nil } ?? "?")
        }
    }

    /// Turns a page into drawable messages; public pages honour the filter.
    func shown(_ page: HistoryPage, names: (Message) -> String) -> [ShownMessage] {
        let messages = page.room == .publicRoom ? filter.apply(to: page.messages) : page.messages
        return messages.map { shown($0, name: names($0)) }
    }

    /// One message ready to draw, highlighted when it names the reader.
    func shown(_ message: Message, name: String) -> ShownMessage {
        let marked = verified.contains(message.senderNumber) ? name + " " + ScreenState.verifiedMark : name
        var shown = ShownMessage(message, name: marked, isOwn: message.senderNumber == me, calendar: calendar)
        shown.highlight = !shown.isOwn && AttentionRule.names(message.content, myName)
        return shown
    }

    /// Unread messages in `room` that want attention: a DM's unread, or
    /// the public room's unread mentions.
    public func highlights(in room: RoomID) -> Int {
        if room.peer != nil { return side[room]?.unread ?? 0 }
        return mentions[room]?.count ?? 0
    }

    /// Unread messages that want attention, in all rooms: O(rooms with
    /// mentions), the DMs' sum being kept by the side list.
    public var totalHighlights: Int {
        side.directUnread + mentions.values.reduce(0) { $0 + $1.count }
    }

    /// The terminal's title: the highlight count first, so a tab bar shows it.
    public var terminalTitle: String {
        let count = totalHighlights
        return (count > 0 ? "(\(count)) " : "") + "lanchat · " + TerminalText.sanitize(myName)
    }
}
