import ChatCore
import ChatNode
import ChatStore
import Foundation

/// A person at a terminal: lines of text to the open room, slash commands,
/// and readable lines for what happens. The prompt names the open room;
/// `/open` is the only command that changes it.
///
/// Reading is what the eye saw: a room opens on the page around its read
/// marker, and the marker moves only across messages this console printed
/// with nothing unread skipped before them (or by `/read`).
public actor InteractiveSession: FrontEnd {
    let node: ChatNode
    let screen: ConsoleScreen
    let renderer: ConsoleRenderer
    let locale: Locale
    let executor: CommandExecutor
    let clock: any ChatClock
    /// Which node each nickname was last seen with ("a different alice").
    var nameHolders = NameHolders()
    /// Peers whose `keyChanged` notice this console printed (bounded by the
    /// node's ledger: one per key per run).
    var keyChangesShown = Set<NodeNumber>()
    /// DM requests shown with their text: the message itself is not shown again.
    var requestsShown: Set<MessageID> = []
    /// Per file transfer, the last quarter of its progress printed.
    var fileQuarters: [MessageID: Int] = [:]
    /// When the session started (ms): messages written before it that
    /// arrive now are catch-up, printed up to `lateLimit` per burst.
    var startedAt: Int64 = 0
    var lateShown = 0
    var lateHeld = 0
    static let lateLimit = 30
    /// Own DMs not yet delivered: a preview, and whether shown as queued.
    var waiting: [MessageID: (preview: String, queued: Bool)] = [:]

    public init(node: ChatNode, screen: ConsoleScreen, renderer: ConsoleRenderer, locale: Locale, clock: any ChatClock = SystemClock()) {
        self.node = node
        self.screen = screen
        self.renderer = renderer
        self.locale = locale
        self.clock = clock
        executor = CommandExecutor(node: node, clock: clock, timeZone: renderer.timeZone, locale: locale, marksShownRead: true)
    }

    public nonisolated var readsInput: Bool { true }

    /// Who you are, who is here, what is unread, then the public room
    /// around its read marker.
    public func started(port: Int) async {
        let me = await node.identity
        startedAt = clock.nowMillis()
        nameHolders.record(me.nickname, number: me.number)
        for room in (try? await node.roomList()) ?? [] {
            if let peer = room.room.peer, let nickname = room.peerNickname, !nickname.isEmpty { nameHolders.record(nickname, number: peer) }
        }
        var lines = [renderer.notice("you are \(renderer.bold(renderer.safe(me.nickname) + "#" + me.number.shortTag))"
            + (me.stage.map { " [\(renderer.safe($0))]" } ?? "") + ", linking on TCP port \(port)")]
        let peers = await node.peers().count
        var unread: [RoomOverview] = []
        if case .rooms(let rooms)? = try? await executor.run(.unread) { unread = rooms }
        let summary = unread.map { "\(renderer.roomLabel($0.room, title: $0.title)) \($0.unread)" }.joined(separator: ", ")
        lines.append(renderer.notice("\(peers == 0 ? "no peers linked yet" : "\(peers) peer\(peers == 1 ? "" : "s") linked"); "
            + (unread.isEmpty ? "nothing unread" : "unread: \(summary)")))
        screen.write(lines)
        if let result = try? await executor.run(.open("public")) {
            screen.write(await self.lines(for: result, command: .open("public"), quietWhenEmpty: true))
        }
        screen.write(renderer.notice("type to talk in #public; /open ROOM switches, /help lists commands"))
        screen.setPrompt("#public")
    }

    public func refuseLine(bytes: Int, limit: Int) async {
        screen.write(renderer.error(InputLines.refusal(bytes: bytes, limit: limit)))
    }

    public func handle(line: String) async -> Bool {
        let command: ControlCommand
        do {
            guard let parsed = try ConsoleCommandParser.parse(line) else { return true }
            command = parsed
            if case .say = parsed {} else { screen.echo(line) }
        } catch {
            screen.echo(line)
            screen.write(renderer.error(error.message))
            return true
        }
        do {
            let result = try await executor.run(command)
            screen.write(await lines(for: result, command: command))
            if case .open = command { screen.setPrompt(await roomLabel(await executor.openRoom)) }
            if case .quit = result { return false }
        } catch {
            screen.write(renderer.error(await describe(error)))
        }
        return true
    }

    private func lines(for result: CommandResult, command: ControlCommand, quietWhenEmpty: Bool = false) async -> [String] {
        switch result {
        case .quit, .done:
            return []
        case .sent(let message):
            return await sentLines(message)
        case .help:
            return [HelpText.consoleHelp]
        case .peers(let listings):
            let filter = await executor.filter
            let linked = await node.peers().count
            return renderer.peers(listings, filter: filter, linked: linked)
        case .whois(let whois):
            return renderer.whois(whois)
        case .verification(let result, let name):
            return renderer.verification(result, name: name)
        case .discarded(let count, let name):
            return [renderer.notice(renderer.plainDiscarded(count, name: name))]
        case .rooms(let rooms):
            return renderer.rooms(rooms, emptyText: "nothing unread")
        case .roomGroups(let groups):
            return renderer.roomGroups(groups)
        case .history(let page, let sections):
            let title = await roomLabel(page.room)
            if page.messages.isEmpty {
                if quietWhenEmpty { return [] }
                return [renderer.notice(Self.emptyPageText(command, room: title, page: page))]
            }
            var names: [NodeNumber: String] = [:]
            for message in page.messages where names[message.senderNumber] == nil {
                names[message.senderNumber] = ConsoleRenderer.marked(node.displayName(for: message.senderNumber, nickname: message.senderNickname),
                                                                     node.trust(of: message.senderNumber))
            }
            var lines: [String] = []
            if case .more = command {} else { lines.append(renderer.bold("── \(title) ──")) }
            let conversation = page.room.peer == nil ? nil : String(title.dropFirst())
            let states = await node.deliveryStates(in: page)
            return lines + renderer.history(page, sections: sections, locale: locale, conversation: conversation, states: states) {
                names[$0.senderNumber] ?? $0.senderNickname
            }
        case .read(let room, let unread):
            return [renderer.notice(unread == 0 ? "\(await roomLabel(room)) all read" : "\(await roomLabel(room)): \(unread) unread after the marker")]
        case .filter(let filter):
            if case .filter(let text?) = command, ChatFilter(text) == nil {
                return [renderer.error("filter is all, none, or a stage name (stage:NAME also works)")]
            }
            return [renderer.notice("filter: \(renderer.safe(filter.description))")]
        case .fileOffered(let transfer):
            return [renderer.notice("offered \(renderer.safe(transfer.name)) (\(ConsoleRenderer.bytes(transfer.size))) to \(renderer.safe(transfer.peerNickname)) as #\(ConsoleRenderer.shortID(transfer.id)); /cancel-file \(ConsoleRenderer.shortID(transfer.id)) takes it back")]
        case .files(let transfers):
            return renderer.files(transfers)
        case .stats(let counters, let transport):
            return renderer.stats(counters, transport: transport)
        case .search(let results, let first):
            var labels: [RoomID: String] = [:]
            for hit in results.hits where labels[hit.message.room] == nil { labels[hit.message.room] = await roomLabel(hit.message.room) }
            return renderer.searchResults(results, first: first, room: { labels[$0] ?? $0.description }) {
                node.displayName(for: $0.senderNumber, nickname: $0.senderNickname)
            }
        }
    }

    static func emptyPageText(_ command: ControlCommand, room: String, page: HistoryPage) -> String {
        switch command {
        case .more(older: true): "this is the beginning of the conversation"
        case .more(older: false): "this is the newest message; new ones appear as they come"
        default: "no messages in \(room) yet"
        }
    }

    /// Your own message, shown like everyone's, with its delivery state.
    private func sentLines(_ message: Message) async -> [String] {
        let me = await node.identity
        guard let peer = message.room.peer else {
            let linked = await node.peers().count
            var lines = [renderer.message(message, name: me.nickname, conversation: nil, state: linked == 0 ? "stored" : nil)]
            if linked == 0 { lines.append(renderer.notice("nobody is linked yet; peers get it when they catch up")) }
            return lines
        }
        let name = await self.name(of: peer)
        let online = await node.peers().contains { $0.number == peer }
        remember(message, queued: !online)
        var lines = [renderer.message(message, name: me.nickname, conversation: name, state: online ? "sent" : "queued")]
        if !online { lines.append(renderer.notice("\(renderer.bold(renderer.safe(name))) is offline; queued, sent when they are back")) }
        return lines
    }

    /// Keeps a preview of an own DM for its delivery line (bounded).
    func remember(_ message: Message, queued: Bool) {
        if waiting.count >= 256, let any = waiting.keys.first { waiting[any] = nil }
        waiting[message.id] = (String(message.content.prefix(30)), queued)
    }

    /// `#public` or `@bob` (with its tag when shared).
    func roomLabel(_ room: RoomID) async -> String {
        guard let peer = room.peer else { return "#public" }
        return "@" + renderer.safe(await name(of: peer))
    }

    /// A peer's name as people see it, never its 16-digit number: linked
    /// peers, then conversations, then its `#tag`.
    func name(of peer: NodeNumber) async -> String {
        if let info = await node.peers().first(where: { $0.number == peer }) {
            return node.displayName(for: peer, nickname: info.nickname)
        }
        if let room = await node.rooms().first(where: { $0.room == .direct(peer) }), !room.title.isEmpty, room.title != "\(peer)" {
            return room.title
        }
        return "#" + peer.shortTag
    }

    /// A command's error with peers named, not numbered.
    func describe(_ error: NodeError) async -> String {
        guard case .chat(let chat) = error else { return renderer.safe(error.description) }
        switch chat {
        case .awaitingAcceptance(let peer): return "waiting for \(renderer.safe(await name(of: peer))) to accept your DM request"
        case .declinedByPeer(let peer): return "\(renderer.safe(await name(of: peer))) declined your DM request"
        case .noPendingRequest(let peer): return "no DM request from \(renderer.safe(await name(of: peer))) to answer"
        case .dmNotAccepted(let peer): return "no accepted conversation with \(renderer.safe(await name(of: peer)))"
        default: return renderer.safe(chat.description)
        }
    }
}
