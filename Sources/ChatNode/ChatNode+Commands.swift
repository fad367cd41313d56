import ChatCore

/// What the user (console, script, bot) can ask the node to do.
extension ChatNode {
    /// Sends `text` to the public room. Refused text sends nothing.
    @discardableResult
    public func sendPublic(_ text: String, automatic: Bool = false) async throws(NodeError) -> Message {
        let composed: (payload: P2PPayload, message: Message)
        do { composed = try router.publicChat.compose(text, at: clock.nowMillis(), automatic: automatic) } catch { throw .chat(error) }
        await transport.broadcast(composed.payload)
        emit(.message(composed.message))
        return composed.message
    }

    /// Sends `text` to the peer `name` names (nickname, `name#tag`, or number).
    @discardableResult
    public func sendDirect(_ text: String, to name: String, automatic: Bool = false) async throws(NodeError) -> Message {
        let peer = try lookUp(name)
        return try await sendDirect(text, to: peer.number, automatic: automatic)
    }

    @discardableResult
    public func sendDirect(_ text: String, to peer: NodeNumber, automatic: Bool = false) async throws(NodeError) -> Message {
        guard let info = directory[peer] else { throw .peerUnreachable("\(peer)") }
        let composed: (payloads: [P2PPayload], events: [ChatEvent])
        do {
            composed = try router.directChat.compose(text, to: peer, peerNickname: info.nickname, at: clock.nowMillis(), automatic: automatic)
        } catch { throw .chat(error) }
        for payload in composed.payloads { await transport.send(payload, to: peer) }
        for event in composed.events { report(event) }
        let sent = composed.payloads.last!
        let message = try! Message(from: sent, localNumber: identity.number)  // composed from validated text
        emit(.message(message))
        return message
    }

    public func accept(_ name: String) async throws(NodeError) {
        let peer = try lookUpAnyone(name)
        let answer: (payload: P2PPayload?, events: [ChatEvent])
        do { answer = try router.directChat.accept(peer, at: clock.nowMillis()) } catch { throw .chat(error) }
        if let payload = answer.payload { await transport.send(payload, to: peer) }
        for event in answer.events { report(event) }
    }

    public func decline(_ name: String) async throws(NodeError) {
        let peer = try lookUpAnyone(name)
        let answer: (payload: P2PPayload?, events: [ChatEvent])
        do { answer = try router.directChat.decline(peer, at: clock.nowMillis()) } catch { throw .chat(error) }
        if let payload = answer.payload { await transport.send(payload, to: peer) }
        for event in answer.events { report(event) }
    }

    /// Makes `room` the one being read: its unread count clears, and the
    /// previously active room starts counting again.
    public func activate(_ room: RoomID) {
        if let previous = activeRoom, previous != room {
            switch previous {
            case .publicRoom: router.publicChat.deactivate()
            case .direct(let peer): router.directChat.deactivate(peer)
            }
        }
        activeRoom = room
        let events: [ChatEvent]
        switch room {
        case .publicRoom: events = router.publicChat.activate()
        case .direct(let peer): events = router.directChat.activate(peer)
        }
        events.forEach(report)
    }

    /// Resolves a room name: "public", "dm:<number>", or a peer's name.
    public func room(named name: String) throws(NodeError) -> RoomID {
        if let room = RoomID(name) { return room }
        if name.lowercased() == "public" { return .publicRoom }
        return .direct(try lookUpAnyone(name))
    }

    public func peers() -> [PeerInfo] { directory.sorted }

    /// The name to show for a peer (`bob`, or `bob#3f2a` when shared).
    public func displayName(for number: NodeNumber, nickname: String) -> String {
        number == identity.number ? identity.nickname : directory.displayName(for: number, nickname: nickname, localIdentity: identity)
    }

    public func rooms() -> [RoomOverview] {
        var rooms = [RoomOverview(room: .publicRoom, title: "public", unread: router.publicChat.unreadCount,
                                  last: router.publicChat.messages.last, dmState: nil)]
        for conversation in router.directChat.conversations.values.sorted(by: { $0.peer < $1.peer }) {
            rooms.append(RoomOverview(
                room: .direct(conversation.peer),
                title: displayName(for: conversation.peer, nickname: conversation.peerNickname),
                unread: conversation.log.unreadCount, last: conversation.log.messages.last, dmState: conversation.state))
        }
        return rooms
    }

    /// The newest messages held in memory for `room` (at most 100).
    public func recentMessages(in room: RoomID) -> [Message] {
        switch room {
        case .publicRoom: Array(router.publicChat.messages)
        case .direct(let peer): router.directChat.conversation(with: peer).map { Array($0.log.messages) } ?? []
        }
    }

    public func counters() -> RouterCounters { router.counters }

    /// Changes the local nickname (and stage), announced to peers.
    public func rename(nickname: String, stage: String?? = nil) async throws(NodeError) {
        var updated = identity
        do {
            updated.nickname = try NodeName.validated(nickname)
            if let stage { updated.stage = try stage.map { name throws(NameValidationError) in try NodeName.validated(name) } }
        } catch { throw .invalidName(error) }
        router.identity = updated
        await transport.updateIdentity(updated)
    }

    func lookUp(_ name: String) throws(NodeError) -> PeerInfo {
        do { return try directory.resolve(name) } catch { throw .peer(error) }
    }

    /// Like `lookUp`, but also finds peers known only from a conversation
    /// (e.g. to decline someone who has gone).
    func lookUpAnyone(_ name: String) throws(NodeError) -> NodeNumber {
        if let peer = try? directory.resolve(name) { return peer.number }
        var known = PeerDirectory()
        for conversation in router.directChat.conversations.values {
            known.upsert(PeerInfo(number: conversation.peer, nickname: conversation.peerNickname, instanceId: "", address: ""))
        }
        do { return try known.resolve(name).number } catch { throw .peer(error) }
    }
}

/// One line of the room list.
public struct RoomOverview: Hashable, Sendable {
    public var room: RoomID
    public var title: String
    public var unread: Int
    public var last: Message?
    public var dmState: DMState?
}
