import ChatCore
import ChatNode

/// `--json`: one JSON object per line on stdout for every event, one JSON
/// command per line on stdin. A bad line yields an error event, never an
/// exit. The schema is in README ("JSON lines").
public actor JSONSession: FrontEnd {
    private let node: ChatNode
    private let out: LineWriter
    private var executor: CommandExecutor
    private let instanceId: String

    public init(node: ChatNode, out: LineWriter, instanceId: String) {
        self.node = node
        self.out = out
        self.instanceId = instanceId
        executor = CommandExecutor(node: node)
    }

    public nonisolated var readsInput: Bool { true }

    public func started(port: Int) async {
        let me = await node.identity
        var ready: [String: Any] = [
            "event": "ready", "number": me.number.rawValue, "nickname": me.nickname,
            "port": port, "instanceId": instanceId,
        ]
        if let stage = me.stage { ready["stage"] = stage }
        await out.write(JSONEventEncoder.line(ready))
    }

    public func handle(_ event: NodeEvent) async {
        guard let object = await encode(event) else { return }
        await out.write(JSONEventEncoder.line(object))
    }

    private func encode(_ event: NodeEvent) async -> [String: Any]? {
        let me = await node.identity
        switch event {
        case .started:
            return nil
        case .stopped:
            return ["event": "stopped"]
        case .message(let message):
            let name = await node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            return JSONEventEncoder.message(message, localNumber: me.number, name: name)
        case .peerJoined(let peer):
            return ["event": "peerJoined", "peer": JSONEventEncoder.peer(peer, name: await name(peer))]
        case .peerUpdated(let peer, _):
            return ["event": "peerUpdated", "peer": JSONEventEncoder.peer(peer, name: await name(peer))]
        case .peerLeft(let peer, let reason):
            return ["event": "peerLeft", "peer": JSONEventEncoder.peer(peer, name: peer.nickname), "reason": reason.rawValue]
        case .dmRequest(let peer, let message):
            return ["event": "dmRequest", "peer": JSONEventEncoder.peer(peer, name: await name(peer)),
                    "id": message.id.description, "text": message.content]
        case .dmState(let peer, let nickname, let state):
            return ["event": "dmState", "peer": peer.rawValue, "nickname": nickname, "state": state.rawValue]
        case .unread(let room, let count):
            return ["event": "unread", "room": room.description, "count": count]
        case .rejected(let from, let reason):
            return ["event": "rejected", "from": from.rawValue, "reason": reason]
        }
    }

    private func name(_ peer: PeerInfo) async -> String {
        await node.displayName(for: peer.number, nickname: peer.nickname)
    }

    public func handle(line: String) async -> Bool {
        guard !line.trimmingWhitespace().isEmpty else { return true }
        let parsed: JSONCommandParser.Parsed
        do { parsed = try JSONCommandParser.parse(line) } catch {
            await out.write(JSONEventEncoder.line(JSONEventEncoder.error(error.message, re: nil)))
            return true
        }
        var reply: [String: Any] = ["event": "ok", "cmd": parsed.command.name]
        do {
            var executor = self.executor
            let result = try await executor.run(parsed.command)
            self.executor = executor
            switch result {
            case .quit:
                if let re = parsed.requestID { reply["re"] = re }
                await out.write(JSONEventEncoder.line(reply))
                return false
            case .sent(let message):
                reply["id"] = message.id.description
                reply["room"] = message.room.description
            case .done:
                break
            case .peers(let listings):
                reply["peers"] = listings.map { JSONEventEncoder.peer($0.info, name: $0.displayName) }
            case .rooms(let rooms):
                reply["rooms"] = rooms.map(JSONEventEncoder.room)
            case .stats(let counters):
                reply["received"] = counters.received
                reply["rejected"] = counters.rejected
                reply["unknownType"] = counters.unknownType
            case .help:
                reply["commands"] = ["send", "dm", "accept", "decline", "open", "peers", "rooms", "unread", "nick", "stats", "help", "quit"]
            }
        } catch {
            await out.write(JSONEventEncoder.line(JSONEventEncoder.error(error.description, re: parsed.requestID)))
            return true
        }
        if let re = parsed.requestID { reply["re"] = re }
        await out.write(JSONEventEncoder.line(reply))
        return true
    }
}
