import ChatCore

/// What the user (console, script, bot) can ask the node to do.
extension ChatNode {
    /// Sends `text` to the public room: stored, then written to every link.
    /// Refused text sends nothing.
    @discardableResult
    public func sendPublic(_ text: String, automatic: Bool = false) async throws(NodeError) -> Message {
        let composed: (payload: P2PPayload, message: Message)
        do { composed = signed(try router.publicChat.compose(text, at: clock.nowMillis(), automatic: automatic)) } catch { throw .chat(error) }
        do { try await store.insert(composed.message) } catch { throw .store(error) }
        // Writing in a room means having read it up to here.
        _ = try? await store.markRead(.publicRoom, upTo: HistoryCursor(composed.message))
        await transport.broadcast(composed.payload)
        emit(.message(composed.message))
        return composed.message
    }

    /// Sends `text` to the peer `name` names (nickname, `name#tag`, or
    /// number): linked peers, or peers known from a conversation (the DM
    /// waits in the outbox until they are back).
    @discardableResult
    public func sendDirect(_ text: String, to name: String, automatic: Bool = false) async throws(NodeError) -> Message {
        try await sendDirect(text, to: try lookUpAnyone(name), automatic: automatic)
    }

    @discardableResult
    public func sendDirect(_ text: String, to peer: NodeNumber, automatic: Bool = false) async throws(NodeError) -> Message {
        let nickname = directory[peer]?.nickname ?? router.directChat.conversation(with: peer)?.peerNickname ?? "\(peer)"
        let composed: (payloads: [P2PPayload], events: [ChatEvent])
        do {
            composed = try router.directChat.compose(text, to: peer, peerNickname: nickname, at: clock.nowMillis(), automatic: automatic)
        } catch { throw .chat(error) }
        let sent = composed.payloads.last!
        try await enqueue(sent)
        await persistConversation(peer)
        // An accept that precedes a reply is a control frame, not queued.
        for frame in composed.payloads.dropLast() { await transport.send(frame, to: peer) }
        for event in composed.events { report(event) }
        let message = try! Message(from: sent, localNumber: identity.number)  // composed from validated text
        _ = try? await store.markRead(message.room, upTo: HistoryCursor(message))
        emit(.message(message))
        emit(.delivery(message.id, room: message.room, .queued))
        await pumpOutbox()
        return message
    }

    public func accept(_ name: String) async throws(NodeError) {
        try await answer(name, accepting: true)
    }

    public func decline(_ name: String) async throws(NodeError) {
        try await answer(name, accepting: false)
    }

    private func answer(_ name: String, accepting: Bool) async throws(NodeError) {
        let peer = try lookUpAnyone(name)
        let answer: (payload: P2PPayload?, events: [ChatEvent])
        do {
            answer = accepting ? try router.directChat.accept(peer, at: clock.nowMillis())
                               : try router.directChat.decline(peer, at: clock.nowMillis())
        } catch { throw .chat(error) }
        await persistConversation(peer)
        if !accepting { await failOutbox(for: peer) }
        if let payload = answer.payload { await transport.send(payload, to: peer) }
        for event in answer.events { report(event) }
    }

    /// Makes `room` the one being read: its unread count clears (in memory
    /// and in the store), and the previously active room counts again.
    public func activate(_ room: RoomID) async {
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
        _ = try? await store.markAllRead(room)
        events.forEach(report)
    }

    /// No room is being read (the reader looks at the room list).
    public func deactivate() {
        switch activeRoom {
        case .publicRoom: router.publicChat.deactivate()
        case .direct(let peer): router.directChat.deactivate(peer)
        case nil: break
        }
        activeRoom = nil
    }

    /// Resolves a room name: "public", "dm:<number>", or a peer's name.
    public func room(named name: String) throws(NodeError) -> RoomID {
        if let room = RoomID(name) { return room }
        if name.lowercased() == "public" || name == "#public" { return .publicRoom }
        return .direct(try lookUpAnyone(name))
    }

    public func peers() -> [PeerInfo] { directory.sorted }

    /// The name to show for a peer (`bob`, or `bob#3f2a` when shared).
    public func displayName(for number: NodeNumber, nickname: String) -> String {
        number == identity.number ? identity.nickname : directory.displayName(for: number, nickname: nickname, localIdentity: identity)
    }

    /// Rooms held in memory, public first (the store's list is `roomList()`).
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

    /// The transport's counters (links, beacons, frames refused, limits hit).
    public func transportDiagnostics() async -> [String: Int] {
        await transport.diagnostics()
    }

    public func statistics() -> NodeCounters {
        var snapshot = counters
        snapshot.rejected = router.counters.rejected
        snapshot.unknownType = router.counters.unknownType
        return snapshot
    }

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

    /// Finds a linked peer, or one known only from a conversation (to DM
    /// someone who is away, or decline someone who has gone).
    func lookUpAnyone(_ name: String) throws(NodeError) -> NodeNumber {
        if let peer = try? directory.resolve(name) { return peer.number }
        var known = PeerDirectory()
        for conversation in router.directChat.conversations.values where directory[conversation.peer] == nil {
            known.upsert(PeerInfo(number: conversation.peer, nickname: conversation.peerNickname, instanceId: "", address: ""))
        }
        for peer in directory.peers.values { known.upsert(peer) }
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
