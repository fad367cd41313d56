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
    public var filter = ChatFilter.all
    /// Linked peers and their stages.
    public var peers: [NodeNumber: String?] = [:]
    public var notice: String?
    /// Lines shown over the room until the next key.
    public var panel: [String]?
    public var quitting = false
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

    public var language: ChatListGrouping.Language { grouping.language }
    public var calendar: Calendar { grouping.calendar }

    // The layout's fixed parts. Narrow terminals drop the side list.
    public var sideWidth: Int { width >= 60 ? min(28, width / 4) : 0 }
    /// First column of the room area.
    public var roomColumn: Int { sideWidth == 0 ? 0 : sideWidth + 1 }
    public var roomWidth: Int { max(0, width - roomColumn) }
    /// Rows for messages: all but the room header, status and input rows.
    public var messageRows: Int { max(0, height - 3) }
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
        return messages.map { ShownMessage($0, name: names($0), isOwn: $0.senderNumber == me, calendar: calendar) }
    }
}
