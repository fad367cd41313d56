import ChatCore
import ChatNode

/// A person at a terminal: lines of text to the open room, slash commands,
/// and readable lines for what happens.
public actor InteractiveSession: FrontEnd {
    private let node: ChatNode
    private let out: LineWriter
    private let renderer: ConsoleRenderer
    private var executor: CommandExecutor

    public init(node: ChatNode, out: LineWriter, renderer: ConsoleRenderer) {
        self.node = node
        self.out = out
        self.renderer = renderer
        executor = CommandExecutor(node: node)
    }

    public nonisolated var readsInput: Bool { true }

    public func started(port: Int) async {
        let me = await node.identity
        await out.write(renderer.notice("you are \(renderer.safe(me.nickname))#\(me.number.shortTag), linking on TCP port \(port); /help lists commands"))
    }

    public func handle(_ event: NodeEvent) async {
        let me = await node.identity
        switch event {
        case .message(let message) where message.senderNumber != me.number:
            let name = await node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            var conversation: String?
            if case .direct(let peer) = message.room { conversation = name == "" ? "\(peer)" : name }
            await out.write(renderer.message(message, name: name, conversation: conversation))
        case .dmRequest(let peer, let message):
            let name = await node.displayName(for: peer.number, nickname: peer.nickname)
            await out.write(renderer.dmRequest(from: name, text: message.content))
        case .dmState(let peer, let nickname, let state):
            let name = await node.displayName(for: peer, nickname: nickname)
            if let line = renderer.dmState(state, peer: name) { await out.write(line) }
        case .peerJoined(let peer):
            let name = await node.displayName(for: peer.number, nickname: peer.nickname)
            await out.write(renderer.peerJoined(name, address: peer.address))
        case .peerLeft(let peer, let reason):
            await out.write(renderer.peerLeft(peer.nickname, reason: reason))
        case .peerUpdated(let peer, let previous):
            if let previous, previous.nickname != peer.nickname {
                await out.write(renderer.notice("\(renderer.safe(previous.nickname)) is now known as \(renderer.safe(peer.nickname))"))
            }
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
            switch result {
            case .quit:
                return false
            case .help:
                await out.write(HelpText.consoleHelp)
            case .peers(let listings):
                for line in renderer.peers(listings) { await out.write(line) }
            case .rooms(let rooms):
                let empty = command == .unread ? "nothing unread" : "no rooms"
                for line in renderer.rooms(rooms, emptyText: empty) { await out.write(line) }
            case .stats(let counters):
                await out.write(renderer.stats(counters))
            case .sent, .done:
                if case .open(let name) = command { await out.write(renderer.notice("now in \(renderer.safe(name))")) }
            }
        } catch {
            await out.write(renderer.error(error.description))
        }
        return true
    }
}
