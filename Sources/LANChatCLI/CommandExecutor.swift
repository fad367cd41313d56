import ChatCore
import ChatNode
import ChatStore
import Foundation

/// What a command produced, for the front end to show.
public enum CommandResult: Sendable {
    case sent(Message)
    case done
    case peers([PeerListing])
    case rooms([RoomOverview])
    /// The stored room list, grouped Today / Yesterday / months / years.
    case roomGroups([ChatListGroup<RoomSummary>])
    /// A page of history with its day sections.
    case history(HistoryPage, sections: [DaySection])
    case read(RoomID, unread: Int)
    case filter(ChatFilter)
    case stats(NodeCounters, transport: [String: Int])
    case help
    case quit
}

/// A peer with the name to show for it (`bob`, or `bob#3f2a` when shared).
public struct PeerListing: Hashable, Sendable {
    public var info: PeerInfo
    public var displayName: String
}

/// Runs `ControlCommand`s against a node and keeps what the front ends
/// share: the open room, its history window, and the filter.
public struct CommandExecutor: Sendable {
    public let node: ChatNode
    public private(set) var openRoom = RoomID.publicRoom
    /// The loaded history range of the open room, once `/history` ran.
    public private(set) var window: HistoryWindow?
    public private(set) var filter = ChatFilter.all
    let grouping: ChatListGrouping
    let calendar: Calendar

    public init(node: ChatNode, clock: any ChatClock = SystemClock(), timeZone: TimeZone = .current, locale: Locale = Locale(identifier: "en_US_POSIX")) {
        self.node = node
        grouping = ChatListGrouping(clock: clock, timeZone: timeZone, locale: locale)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = locale
        self.calendar = calendar
    }

    /// Where a live message goes for the reader of the open history, or nil
    /// when no history window is open for its room.
    public mutating func place(_ message: Message) -> HistoryWindow.LivePlacement? {
        guard window?.room == message.room else { return nil }
        return window?.place(message)
    }

    public mutating func run(_ command: ControlCommand) async throws(NodeError) -> CommandResult {
        switch command {
        case .say(let text, let roomName, let automatic):
            let room = try await roomName.asyncMap { name throws(NodeError) in try await node.room(named: name) } ?? openRoom
            switch room {
            case .publicRoom: return .sent(try await node.sendPublic(text, automatic: automatic))
            case .direct(let peer): return .sent(try await node.sendDirect(text, to: peer, automatic: automatic))
            }
        case .dm(let name, let text, let automatic):
            return .sent(try await node.sendDirect(text, to: name, automatic: automatic))
        case .accept(let name):
            try await node.accept(name)
            return .done
        case .decline(let name):
            try await node.decline(name)
            return .done
        case .open(let name):
            let room = try await node.room(named: name)
            await node.activate(room)
            if room != openRoom { window = nil }
            openRoom = room
            return .done
        case .peers:
            var listings: [PeerListing] = []
            for peer in filter.apply(to: await node.peers()) {
                listings.append(PeerListing(info: peer, displayName: await node.displayName(for: peer.number, nickname: peer.nickname)))
            }
            return .peers(listings)
        case .rooms:
            let rooms = try await node.roomList()
            return .roomGroups(grouping.group(rooms) { $0.lastActivity })
        case .unread:
            return .rooms(await node.rooms().filter { $0.unread > 0 })
        case .nick(let name):
            try await node.rename(nickname: name)
            return .done
        case .history(let name):
            let room = try await name.asyncMap { name throws(NodeError) in try await node.room(named: name) } ?? openRoom
            if room != openRoom { await node.activate(room) }
            openRoom = room
            let page = try await node.openHistory(room)
            window = HistoryWindow(page: page)
            return historyResult(page)
        case .more(let older):
            guard var current = window else { return try await run(.history(nil)) }
            let page: HistoryPage
            if older {
                guard let cursor = current.olderPageCursor else {
                    // At the top of what exists: the reader looks up, not at new messages.
                    current.readerMoved(toBottom: false)
                    window = current
                    return historyResult(HistoryPage(room: current.room, messages: [], hasMoreBefore: false, hasMoreAfter: current.hasMoreAfter))
                }
                page = try await node.historyPage(current.room, before: cursor)
                current.loadedOlder(page)
            } else {
                guard let cursor = current.newerPageCursor else {
                    current.readerMoved(toBottom: true)
                    window = current
                    return historyResult(HistoryPage(room: current.room, messages: [], hasMoreBefore: current.hasMoreBefore, hasMoreAfter: false))
                }
                page = try await node.historyPage(current.room, after: cursor)
                current.loadedNewer(page)
            }
            window = current
            return historyResult(page)
        case .read:
            var newest = window?.newest
            if newest == nil { newest = await node.recentMessages(in: openRoom).last.map(HistoryCursor.init) }
            guard let newest else {
                return .read(openRoom, unread: 0)
            }
            return .read(openRoom, unread: try await node.markRead(openRoom, upTo: newest))
        case .filter(let text):
            if let text {
                guard let parsed = ChatFilter(text) else { return .filter(filter) }
                filter = parsed
            }
            return .filter(filter)
        case .stats:
            return .stats(await node.statistics(), transport: await node.transportDiagnostics())
        case .help:
            return .help
        case .quit:
            return .quit
        }
    }

    private func historyResult(_ page: HistoryPage) -> CommandResult {
        var shown = page
        if page.room == .publicRoom { shown.messages = filter.apply(to: page.messages) }
        return .history(shown, sections: DaySection.sections(of: shown.messages, calendar: calendar))
    }
}

extension Optional {
    /// `map` for an async, typed-throwing transform.
    func asyncMap<U, E: Error>(_ transform: (Wrapped) async throws(E) -> U) async throws(E) -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
