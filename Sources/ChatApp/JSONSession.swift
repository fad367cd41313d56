import ChatCore
import ChatNode
import Foundation

/// `--json`: one JSON object per line on stdout for every event, one JSON
/// command per line on stdin. A bad line yields an error event, never an
/// exit. The schema is in docs/USAGE.md ("Scripts: JSON lines").
public actor JSONSession: FrontEnd {
    private let node: ChatNode
    private let out: LineWriter
    private let executor: CommandExecutor
    private let instanceId: String
    /// This node's identity key fingerprint, for the ready event.
    private let fingerprint: String?

    public init(node: ChatNode, out: LineWriter, instanceId: String, fingerprint: String? = nil,
                locale: Locale = Locale(identifier: "en_US_POSIX")) {
        self.fingerprint = fingerprint
        self.node = node
        self.out = out
        self.instanceId = instanceId
        executor = CommandExecutor(node: node, locale: locale)
    }

    public nonisolated var readsInput: Bool { true }

    public func started(port: Int) async {
        let me = await node.identity
        var ready: [String: Any] = [
            "event": "ready", "number": me.number.rawValue, "nickname": me.nickname,
            "port": port, "instanceId": instanceId,
        ]
        if let stage = me.stage { ready["stage"] = stage }
        if let fingerprint { ready["fingerprint"] = fingerprint }
        await out.write(JSONEventEncoder.line(ready))
    }

    public func handle(_ event: NodeEvent) async {
        guard let object = await encode(event) else { return }
        await out.write(JSONEventEncoder.line(object))
    }

    private func encode(_ event: NodeEvent) async -> [String: Any]? {
        // Not `await node.identity`: under a flood every hop to the busy
        // node delays this client's events by seconds.
        let localNumber = node.number
        switch event {
        case .started:
            return nil
        case .stopped:
            return ["event": "stopped"]
        case .message(let message):
            let name = node.displayName(for: message.senderNumber, nickname: message.senderNickname)
            var object = JSONEventEncoder.message(message, localNumber: localNumber, name: name,
                                                  verified: node.trust(of: message.senderNumber)?.isVerified == true)
            if message.senderNumber != localNumber, let placement = await executor.place(message) {
                object["placement"] = "\(placement)"
            }
            return object
        case .delivery(let id, let room, let state):
            return ["event": "delivery", "id": id.description, "room": room.description, "state": state.rawValue]
        case .caughtUp(let peer, let count):
            return ["event": "caughtUp", "from": peer.rawValue, "count": count]
        case .peerJoined(let peer):
            return ["event": "peerJoined", "peer": JSONEventEncoder.peer(peer, name: name(peer), trust: node.trust(of: peer.number))]
        case .peerUpdated(let peer, _):
            return ["event": "peerUpdated", "peer": JSONEventEncoder.peer(peer, name: name(peer), trust: node.trust(of: peer.number))]
        case .keyChanged(let change):
            return JSONEventEncoder.keyChanged(change, name: name(change.peer), trust: node.trust(of: change.peer.number))
        case .peerLeft(let peer, let reason):
            return ["event": "peerLeft", "peer": JSONEventEncoder.peer(peer, name: peer.nickname), "reason": reason.rawValue]
        case .dmRequest(let peer, let message):
            return ["event": "dmRequest", "peer": JSONEventEncoder.peer(peer, name: name(peer)),
                    "id": message.id.description, "text": message.content]
        case .dmState(let peer, let nickname, let state):
            return ["event": "dmState", "peer": peer.rawValue, "nickname": nickname, "state": state.rawValue]
        case .unread(let room, let count):
            return ["event": "unread", "room": room.description, "count": count]
        case .rejected(let from, let reason):
            return ["event": "rejected", "from": from.rawValue, "reason": reason]
        case .storage(let failure):
            return ["event": "storage", "ok": failure == nil, "reason": failure ?? ""]
        case .file(let event):
            return JSONEventEncoder.file(event)
        case .peerQuota(let peer, let nickname, let quota):
            // Only this peer's messages are refused: the store itself works.
            return ["event": "storage", "ok": true, "peer": peer.rawValue, "nickname": nickname, "quotaBytes": quota,
                    "reason": "peer reached its storage quota; its new messages are not stored"]
        }
    }

    private func name(_ peer: PeerInfo) -> String {
        node.displayName(for: peer.number, nickname: peer.nickname)
    }

    public func refuseLine(bytes: Int, limit: Int) async {
        await out.write(JSONEventEncoder.line(JSONEventEncoder.error(InputLines.refusal(bytes: bytes, limit: limit), re: nil)))
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
            let result = try await executor.run(parsed.command)
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
                reply["peers"] = listings.map { JSONEventEncoder.peer($0.info, name: $0.displayName, trust: $0.trust, linked: $0.linked) }
            case .whois(let whois):
                var peer = whois.linked.map { JSONEventEncoder.peer($0, name: whois.displayName) }
                    ?? ["number": whois.number.rawValue, "name": whois.displayName]
                peer["linked"] = whois.linked != nil
                if let other = whois.looksLike { peer["looksLike"] = other }
                if let trust = whois.trust { peer.merge(JSONEventEncoder.trust(trust)) { _, new in new } }
                reply["peer"] = peer
            case .verification(let result, let name):
                reply.merge(JSONEventEncoder.verification(result, name: name)) { _, new in new }
            case .discarded(let count, _):
                reply["discarded"] = count
            case .rooms(let rooms):
                reply["rooms"] = rooms.map(JSONEventEncoder.room)
            case .stats(let counters, let transport):
                reply.merge(JSONEventEncoder.stats(counters, transport: transport)) { _, stat in stat }
            case .roomGroups(let groups):
                reply["groups"] = groups.map { group in
                    ["title": group.title, "rooms": group.items.map(JSONEventEncoder.summary)] as [String: Any]
                }
            case .history(let page, let sections):
                let me = await node.identity.number
                let states = await node.deliveryStates(in: page)
                var messages: [[String: Any]] = []
                for message in page.messages {
                    let name = node.displayName(for: message.senderNumber, nickname: message.senderNickname)
                    var object = JSONEventEncoder.message(message, localNumber: me, name: name,
                                                          verified: node.trust(of: message.senderNumber)?.isVerified == true)
                    object.removeValue(forKey: "event")
                    // Own DMs: where each stands (held ones wait for /verify NAME ok).
                    if let state = states[message.id] { object["delivery"] = state.rawValue }
                    messages.append(object)
                }
                reply["room"] = page.room.description
                reply["messages"] = messages
                reply["hasMoreBefore"] = page.hasMoreBefore
                reply["hasMoreAfter"] = page.hasMoreAfter
                if let marker = page.readMarker { reply["readMarker"] = marker.id.description }
                reply["days"] = sections.map { section in
                    ["date": String(format: "%04d-%02d-%02d", section.year, section.month, section.day), "count": section.messageCount] as [String: Any]
                }
            case .search(let results, let first):
                let me = await node.identity.number
                reply["text"] = results.query.text
                reply["results"] = results.hits.enumerated().map { offset, hit in
                    let name = node.displayName(for: hit.message.senderNumber, nickname: hit.message.senderNickname)
                    var object = JSONEventEncoder.message(hit.message, localNumber: me, name: name)
                    object.removeValue(forKey: "event")
                    object["seq"] = hit.seq
                    object["result"] = first + offset
                    return object
                }
                // Pass back as "before" for the next page; absent when done.
                if let next = results.continueBefore { reply["before"] = next }
                if results.scanned > 0 { reply["scanned"] = results.scanned }
            case .read(let room, let unread):
                reply["room"] = room.description
                reply["unread"] = unread
            case .filter(let filter):
                if case .filter(let text?) = parsed.command, ChatFilter(text) == nil {
                    await out.write(JSONEventEncoder.line(JSONEventEncoder.error("filter is all, none, or a stage name", re: parsed.requestID)))
                    return true
                }
                reply["filter"] = filter.description
            case .fileOffered(let transfer):
                reply["id"] = transfer.id.description
                reply["name"] = transfer.name
                reply["size"] = transfer.size
                reply["sha256"] = transfer.sha256
            case .files(let transfers):
                reply["files"] = transfers.map(JSONEventEncoder.transfer)
            case .help:
                reply["commands"] = ["send", "dm", "accept", "decline", "open", "peers", "whois", "verify", "discard", "rooms", "unread", "nick",
                                     "history", "more", "read", "filter", "search", "jump", "stats",
                                     "sendFile", "acceptFile", "declineFile", "cancelFile", "files", "help", "quit"]
            }
        } catch {
            var object = JSONEventEncoder.error(error.description, re: parsed.requestID)
            // A DM held for a changed verified key: scripts can tell it from a failure.
            if case .held(_, let count, let id) = error {
                object["held"] = count
                object["id"] = id.description
            }
            await out.write(JSONEventEncoder.line(object))
            return true
        }
        if let re = parsed.requestID { reply["re"] = re }
        await out.write(JSONEventEncoder.line(reply))
        return true
    }
}
