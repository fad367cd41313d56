import ChatCore
import ChatNode
import ChatStore
import Foundation

/// What a command produced, for the front end to show.
public enum CommandResult: Sendable {
    case sent(Message)
    case done
    case peers([PeerListing])
    /// A peer by name: linked (with its key) or only known from history.
    case whois(Whois)
    /// `/verify`: the safety number, and what confirming did.
    case verification(KeyVerification, name: String)
    /// `/discard`: how many held DMs were dropped.
    case discarded(Int, name: String)
    case rooms([RoomOverview])
    /// The stored room list, grouped Today / Yesterday / months / years.
    case roomGroups([ChatListGroup<RoomSummary>])
    /// A page of history with its day sections.
    case history(HistoryPage, sections: [DaySection])
    case read(RoomID, unread: Int)
    case filter(ChatFilter)
    /// A page of `/search` results; `first` is the number of its first
    /// result (1 on a new search, counting on for the next pages).
    case search(SearchResults, first: Int)
    case stats(NodeCounters, transport: [String: Int])
    /// A file offered (`sendFile`; its id is the transfer's).
    case fileOffered(FileTransfer)
    /// `/files`: transfers, oldest first.
    case files([FileTransfer])
    case help
    case quit
}

/// What `/whois NAME` found: the number always; address and key
/// fingerprint only while the peer is linked (its handshake proved them).
public struct Whois: Hashable, Sendable {
    public var number: NodeNumber
    public var displayName: String
    public var linked: PeerInfo?
    /// A name this one looks like without being it (UTS #39), if any.
    public var looksLike: String?
    /// How far its key is trusted (nil: no key known).
    public var trust: PeerTrust?

    public init(number: NodeNumber, displayName: String, linked: PeerInfo?, looksLike: String? = nil, trust: PeerTrust? = nil) {
        self.number = number
        self.displayName = displayName
        self.linked = linked
        self.looksLike = looksLike
        self.trust = trust
    }
}

/// A peer with the name to show for it (`bob`, or `bob#3f2a` when shared).
public struct PeerListing: Hashable, Sendable {
    public var info: PeerInfo
    public var displayName: String
    /// How far its key is trusted (nil: it has no key).
    public var trust: PeerTrust?
    /// False for a peer only heard of (beacons): not linked, its name
    /// unproven, so it is always shown with its `#tag`.
    public var linked: Bool

    public init(info: PeerInfo, displayName: String, trust: PeerTrust? = nil, linked: Bool = true) {
        self.info = info
        self.displayName = displayName
        self.trust = trust
        self.linked = linked
    }
}

/// Runs `ControlCommand`s against a node and keeps what the front ends
/// share: the open room (where plain text goes), the history being read
/// (which may be another room's: `/history bob` never switches rooms), and
/// the filter.
///
/// An actor, and no state is read before an `await` and written back after
/// it: a live message placed while a command waits for the store is never
/// erased by the command finishing (the sessions once copied the executor,
/// awaited, and wrote the copy back).
public actor CommandExecutor {
    public nonisolated let node: ChatNode
    public private(set) var openRoom = RoomID.publicRoom
    /// The loaded history range of the room being read, once a page was shown.
    public private(set) var window: HistoryWindow?
    public private(set) var filter = ChatFilter.all
    /// The last `/search`: its query, every result shown so far (what
    /// `/jump N` opens) and where its next page starts.
    public private(set) var lastSearch: SearchResults?
    /// Whether showing a page moves the read marker across it (the console,
    /// where results are printed); `--json` moves it only on `read`.
    public let marksShownRead: Bool
    let grouping: ChatListGrouping
    /// Test seam: runs while `/more` holds a fetched page it has not yet
    /// recorded, so a test can place a live message exactly then.
    var afterPageFetch: (@Sendable () async -> Void)?
    let calendar: Calendar

    public init(node: ChatNode, clock: any ChatClock = SystemClock(), timeZone: TimeZone = .current, locale: Locale = Locale(identifier: "en_US_POSIX"), marksShownRead: Bool = false) {
        self.node = node
        self.marksShownRead = marksShownRead
        grouping = ChatListGrouping(clock: clock, timeZone: timeZone, locale: locale)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = locale
        self.calendar = calendar
    }

    /// Where a live message goes for the reader of the open history, or nil
    /// when no history window is open for its room.
    public func place(_ message: Message) -> HistoryWindow.LivePlacement? {
        guard window?.room == message.room else { return nil }
        return window?.place(message)
    }

    /// The reader was shown `page` (all of it: what the filter hides counts
    /// as passed over): the read marker follows, unless unread messages the
    /// reader never saw lie before it.
    func markShown(_ page: HistoryPage) async {
        guard marksShownRead, let first = page.first, let last = page.last else { return }
        _ = try? await node.markRead(page.room, shownFrom: first, upTo: last)
    }

    /// The reader was shown one live message.
    func markShown(_ message: Message) async {
        guard marksShownRead else { return }
        _ = try? await node.markRead(message.room, shownFrom: message.cursor, upTo: message.cursor)
    }

    public func run(_ command: ControlCommand) async throws(NodeError) -> CommandResult {
        switch command {
        case .say(let text, let roomName, let automatic):
            let room = try await room(roomName) ?? openRoom
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
            // Switches where plain text goes and shows the room around its
            // read marker; nothing is marked read before the page is chosen.
            let room = try await node.room(named: name)
            openRoom = room
            return try await openPage(room)
        case .peers:
            var listings: [PeerListing] = []
            for peer in filter.apply(to: await node.peers()) {
                listings.append(PeerListing(info: peer, displayName: node.displayName(for: peer.number, nickname: peer.nickname),
                                            trust: node.trust(of: peer.number)))
            }
            // Above the overlay's threshold most of the LAN is only heard of.
            for peer in filter.apply(to: await node.heardPeers()) {
                listings.append(PeerListing(info: peer, displayName: "\(peer.nickname)#\(peer.number.shortTag)", linked: false))
            }
            return .peers(listings)
        case .whois(let name):
            guard case .direct(let number) = try await node.room(named: name) else { throw .peer(.notFound(name)) }
            let linked = await node.peers().first { $0.number == number }
            let nickname: String
            if let linked {
                nickname = linked.nickname
            } else {
                nickname = await node.rooms().first { $0.room == .direct(number) }?.title ?? String(number.rawValue)
            }
            return .whois(Whois(number: number, displayName: node.displayName(for: number, nickname: nickname), linked: linked,
                                looksLike: node.looksLike(number), trust: node.trust(of: number)))
        case .verify(let name, let confirm):
            let result = try await node.verify(name, confirm: confirm)
            return .verification(result, name: node.displayName(for: result.number, nickname: result.nickname))
        case .discard(let name):
            return .discarded(try await node.discardHeld(name), name: name)
        case .rooms:
            let rooms = try await node.roomList()
            return .roomGroups(grouping.group(rooms) { $0.lastActivity })
        case .unread:
            return .rooms(try await unreadRooms())
        case .nick(let name):
            do { _ = try NodeName.validatedNickname(name) } catch { throw .invalidName(error) }
            try await node.rename(nickname: name)
            return .done
        case .history(let name):
            // Reading another room's history never changes where text goes.
            let room = try await room(name) ?? openRoom
            return try await openPage(room)
        case .more(let older):
            guard let room = window?.room else { return try await run(.history(nil)) }
            guard let cursor = older ? window?.olderPageCursor : window?.newerPageCursor else {
                // At an end of what exists: the reader looks there now.
                window?.readerMoved(toBottom: !older)
                return historyResult(HistoryPage(room: room, messages: [], hasMoreBefore: !older && window?.hasMoreBefore == true,
                                                 hasMoreAfter: older && window?.hasMoreAfter == true))
            }
            let page = older ? try await node.historyPage(room, before: cursor) : try await node.historyPage(room, after: cursor)
            await afterPageFetch?()
            applyMore(page, older: older)
            await markShown(page)
            return historyResult(page)
        case .read:
            let room = window?.room ?? openRoom
            var newest = window?.room == room ? window?.newest : nil
            if newest == nil { newest = await node.recentMessages(in: room).last.map(HistoryCursor.init) }
            guard let newest else { return .read(room, unread: 0) }
            return .read(room, unread: try await node.markRead(room, upTo: newest))
        case .filter(let text):
            if let text {
                guard let parsed = ChatFilter(text) else { return .filter(filter) }
                filter = parsed
            }
            return .filter(filter)
        case .search(let text, let before, let limit):
            return try await search(text, before: before, limit: limit)
        case .jump(let number):
            guard let hits = lastSearch?.hits, !hits.isEmpty else { throw .chat(.invalidSearch(reason: "no search results to jump to: /search WORDS first")) }
            guard number >= 1, number <= hits.count else { throw .chat(.invalidSearch(reason: "no result \(number); the last search has \(hits.count)")) }
            return try await openPage(around: hits[number - 1].message)
        case .stats:
            return .stats(await node.statistics(), transport: await node.transportDiagnostics())
        case .sendFile, .acceptFile, .declineFile, .cancelFile, .files:
            return try await runFile(command)
        case .help:
            return .help
        case .quit:
            return .quit
        }
    }

    func setAfterPageFetch(_ hook: (@Sendable () async -> Void)?) { afterPageFetch = hook }

    /// Records a page fetched by `/more` into the window as it is *now*
    /// (live messages may have been placed while the page was fetched).
    func applyMore(_ page: HistoryPage, older: Bool) {
        guard let current = window, current.room == page.room else { return }  // the reader moved on meanwhile
        // Two `/more` racing fetch the same page: record it once.
        if older, let last = page.last, let oldest = current.oldest, last >= oldest { return }
        if !older, let first = page.first, let newest = current.newest, first <= newest { return }
        if older { window?.loadedOlder(page) } else { window?.loadedNewer(page) }
    }

    /// The page around `room`'s read marker, which becomes the window.
    private func openPage(_ room: RoomID) async throws(NodeError) -> CommandResult {
        let page = try await node.openHistory(room)
        window = HistoryWindow(page: page)
        await markShown(page)
        return historyResult(page)
    }

    /// Runs `/search`: new text starts a new search; nil text asks for the
    /// next page of the last one (an empty page once it is exhausted).
    private func search(_ text: String?, before: Int64?, limit: Int?) async throws(NodeError) -> CommandResult {
        let limit = limit ?? SearchQuery.defaultLimit
        guard let text else {
            guard let last = lastSearch else { throw .chat(.invalidSearch(reason: "nothing to search for: /search WORDS")) }
            let first = last.hits.count + 1
            guard let next = last.continueBefore else {
                return .search(SearchResults(query: last.query, hits: [], continueBefore: nil), first: first)
            }
            let page = try await node.search(last.query.text, before: next, limit: limit)
            // Kept only if no other search replaced the last one meanwhile.
            if lastSearch?.query == last.query, lastSearch?.continueBefore == next {
                lastSearch?.hits += page.hits
                lastSearch?.continueBefore = page.continueBefore
            }
            return .search(page, first: first)
        }
        let page = try await node.search(text, before: before, limit: limit)
        lastSearch = page
        return .search(page, first: 1)
    }

    /// Opens `message`'s room on the page around it (a search result), as
    /// the read window: `/more` pages both ways from there.
    private func openPage(around message: Message) async throws(NodeError) -> CommandResult {
        let page = try await node.openHistory(message.room, around: message.cursor)
        window = HistoryWindow(page: page)
        await markShown(page)
        return historyResult(page)
    }

    /// Rooms with unread messages, counted by the store (the truth the read
    /// marker moves in), titled as the node names them.
    private func unreadRooms() async throws(NodeError) -> [RoomOverview] {
        let stored = try await node.roomList()
        let counts = Dictionary(stored.map { ($0.room, $0.unreadCount) }, uniquingKeysWith: { first, _ in first })
        var rooms = await node.rooms()
        for index in rooms.indices { rooms[index].unread = counts[rooms[index].room] ?? 0 }
        return rooms.filter { $0.unread > 0 }
    }

    private func room(_ name: String?) async throws(NodeError) -> RoomID? {
        guard let name else { return nil }
        return try await node.room(named: name)
    }

    private func historyResult(_ page: HistoryPage) -> CommandResult {
        var shown = page
        if page.room == .publicRoom { shown.messages = filter.apply(to: page.messages) }
        return .history(shown, sections: DaySection.sections(of: shown.messages, calendar: calendar))
    }
}
