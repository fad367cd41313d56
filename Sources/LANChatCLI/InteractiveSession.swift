import ChatCore
import ChatNode
import Foundation

/// A person at a terminal: lines of text to the open room, slash commands,
/// and readable lines for what happens.
public actor InteractiveSession: FrontEnd {
    private let node: ChatNode
    private let out: LineWriter
    private let renderer: ConsoleRenderer
    private let locale: Locale
    private var executor: CommandExecutor

    public init(node: ChatNode, out: LineWriter, renderer: ConsoleRenderer, locale: Locale, clock: any ChatClock = SystemClock()) {
        self.node = node
        self.out = out
        self.renderer = renderer
        self.locale = locale
        executor = CommandExecutor(node: node, clock: clock, timeZone: renderer.timeZone, locale: locale)
    }

    public nonisolated var readsInput: Bool { true }

    public func started(port: Int) async {
        // The console shows the public room live: it is the room being read.
        await node.activate(.publicRoom)
        let me = await node.identity
        await out.write(renderer.notice("you are \(renderer.safe(me.nickname))#\(me.number.shortTag), linking on TCP port \(port); /help lists commands"))
    }

    public func handle(_ event: NodeEvent) async {
        let me = await node.identity
        switch event {
        case .message(let message) where message.senderNumber != me.number:
            if message.room == .publicRoom && !executor.filter.matches(stage: message.senderStage) { return }
            let name = await node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            let conversation: String? = message.room.peer == nil ? nil : name
            switch executor.place(message) {
            case .storeAndAnnounce?:
                // The reader is scrolled back with newer pages unloaded: never
                // print out of order, just say there is something new.
                await out.write(renderer.notice("new message in \(conversation.map { "@" + renderer.safe($0) } ?? "#public"); /more down"))
            default:
                await out.write(renderer.message(message, name: name, conversation: conversation))
            }
        case .dmRequest(let peer, let message):
            let name = await node.displayName(for: peer.number, nickname: peer.nickname)
            await out.write(renderer.dmRequest(from: name, text: message.content))
        case .dmState(let peer, let nickname, let state):
            let name = await node.displayName(for: peer, nickname: nickname)
            if let line = renderer.dmState(state, peer: name) { await out.write(line) }
        case .delivery(_, let room, let state):
            guard let peer = room.peer else { return }
            let nickname = await node.peers().first { $0.number == peer }?.nickname ?? "\(peer)"
            if let line = renderer.delivery(state, peer: await node.displayName(for: peer, nickname: nickname)) { await out.write(line) }
        case .caughtUp(let peer, let count):
            let nickname = await node.peers().first { $0.number == peer }?.nickname ?? "\(peer)"
            await out.write(renderer.notice("caught up on \(count) missed message\(count == 1 ? "" : "s") from \(renderer.safe(nickname))"))
        case .peerJoined(let peer):
            let name = await node.displayName(for: peer.number, nickname: peer.nickname)
            await out.write(renderer.peerJoined(name, address: peer.address))
        case .peerLeft(let peer, let reason):
            await out.write(renderer.peerLeft(peer.nickname, reason: reason))
        case .peerUpdated(let peer, let previous):
            if let previous, previous.nickname != peer.nickname {
                await out.write(renderer.notice("\(renderer.safe(previous.nickname)) is now known as \(renderer.safe(peer.nickname))"))
            }
        case .storage(let failure):
            await out.write(failure.map { renderer.error("cannot store history: \(renderer.safe($0))") } ?? renderer.notice("history is stored again"))
        case .message, .unread, .rejected, .started, .stopped:
            break
        }
    }

    public func handle(line: String) async -> Bool {
        let command: ControlCommand
        do {
            guard let parsed = try ConsoleCommandParser.parse(line) else { return true }
            command = parsed
        } catch {
            await out.write(renderer.error(error.message))
            return true
        }
        do {
            var executor = self.executor
            let result = try await executor.run(command)
            self.executor = executor
            for line in await lines(for: result, command: command) { await out.write(line) }
            if case .quit = result { return false }
        } catch {
            await out.write(renderer.error(error.description))
        }
        return true
    }

    private func lines(for result: CommandResult, command: ControlCommand) async -> [String] {
        switch result {
        case .quit, .sent:
            return []
        case .done:
            if case .open(let name) = command { return [renderer.notice("now in \(renderer.safe(name))")] }
            return []
        case .help:
            return [HelpText.consoleHelp]
        case .peers(let listings):
            return renderer.peers(listings)
        case .rooms(let rooms):
            return renderer.rooms(rooms, emptyText: "nothing unread")
        case .roomGroups(let groups):
            return renderer.roomGroups(groups)
        case .history(let page, let sections):
            var names: [NodeNumber: String] = [:]
            for message in page.messages where names[message.senderNumber] == nil {
                names[message.senderNumber] = await node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            }
            var conversation: String?
            if let peer = page.room.peer {
                let nickname = await node.rooms().first { $0.room == page.room }?.title ?? "\(peer)"
                conversation = names[peer] ?? nickname
            }
            return renderer.history(page, sections: sections, locale: locale, conversation: conversation) { names[$0.senderNumber] ?? $0.senderNickname }
        case .read(_, let unread):
            return [renderer.notice(unread == 0 ? "all read" : "\(unread) unread after the marker")]
        case .filter(let filter):
            if case .filter(let text?) = command, ChatFilter(text) == nil {
                return [renderer.error("filter is all, none, or a stage name")]
            }
            return [renderer.notice("filter: \(renderer.safe(filter.description))")]
        case .stats(let counters, let transport):
            return renderer.stats(counters, transport: transport)
        }
    }
}
