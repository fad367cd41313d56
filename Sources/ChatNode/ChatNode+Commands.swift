import ChatCore

/// What the user (console, script, bot) can ask the node to do.
extension ChatNode {
    /// Sends `text` to the public room: stored, then written to every link.
    /// Refused text sends nothing. Commands arriving while a step commits
    /// share the next step's transaction; this returns after that commit.
    ///
    /// The message gets its id and its signature before the step: the
    /// Ed25519 signature (the largest part of a send) runs off the actor,
    /// in the caller's task, while earlier steps commit and go out.
    @discardableResult
    public func sendPublic(_ text: String, automatic: Bool = false) async throws(NodeError) -> Message {
        let now = clock.nowMillis()
        var draft: (payload: P2PPayload, message: Message)
        do {
            draft = try router.publicChat.draft(text, id: publicMessageIDs.next(millis: now), at: now, automatic: automatic)
        } catch { throw .chat(error) }
        if let authenticator { draft = await Self.signed(draft, with: authenticator) }
        return try await submit(.sendPublic(draft.payload, draft.message)).get()!
    }

    /// Sends `text` to the peer `name` names (nickname, `name#tag`, or
    /// number): linked peers, or peers known from a conversation (the DM
    /// waits in the outbox until they are back).
    @discardableResult
    public func sendDirect(_ text: String, to name: String, automatic: Bool = false) async throws(NodeError) -> Message {
        let peer: NodeNumber
        if let known = try? lookUpAnyone(name) {
            peer = known
        } else {
            // Above the overlay's threshold most of the LAN is heard, not
            // linked: a DM to such a peer goes over a link made on demand,
            // or sealed (PROTOCOL.md, "Overlay", direct reach).
            peer = try lookUpAnyone(name, heard: await heardPeers())
        }
        return try await sendDirect(text, to: peer, automatic: automatic)
    }

    /// Queues a DM: the message and its "queued" state are committed in one
    /// transaction, and it is written to the link only after that.
    @discardableResult
    public func sendDirect(_ text: String, to peer: NodeNumber, automatic: Bool = false) async throws(NodeError) -> Message {
        if let nickname = try holdReason(for: peer) { try await hold(text, to: peer, nickname: nickname, automatic: automatic) }
        let sent = try await submit(.sendDirect(text, to: peer, automatic: automatic)).get()!
        if !automatic { await noteTalkedWith(peer) }
        return sent
    }

    public func accept(_ name: String) async throws(NodeError) {
        let peer = try lookUpAnyone(name)
        _ = try await submit(.answer(peer, accepting: true)).get()
        await noteTalkedWith(peer)
    }

    public func decline(_ name: String) async throws(NodeError) {
        _ = try await submit(.answer(try lookUpAnyone(name), accepting: false)).get()
    }

    /// Makes `room` the one being read: its unread count clears (in the
    /// store, then in memory), and the previously active room counts again.
    public func activate(_ room: RoomID) async {
        let previous = activeRoom
        activeRoom = room
        _ = try? await store.markAllRead(room)
        changeRouter(.activate(room, previous: previous)).forEach(report)
    }

    /// No room is being read (the reader looks at the room list).
    public func deactivate() {
        guard let room = activeRoom else { return }
        activeRoom = nil
        changeRouter(.deactivate(room))
    }

    /// Resolves a room name: "public", "dm:<number>", or a peer's name.
    public func room(named name: String) throws(NodeError) -> RoomID {
        if let room = RoomID(name) { return room }
        if name.lowercased() == "public" || name == "#public" { return .publicRoom }
        return .direct(try lookUpAnyone(name))
    }

    public func peers() -> [PeerInfo] { directory.sorted }

    /// The name to show for a peer (`bob`, or `bob#3f2a` when shared), as
    /// the node knows it now; callers need not wait for the node (NameBook).
    public nonisolated func displayName(for number: NodeNumber, nickname: String) -> String {
        names.displayName(for: number, nickname: nickname)
    }

    /// Another name a linked peer's nickname looks like (`аlice` → `alice`):
    /// what a person might take it for. Nil when none.
    public nonisolated func looksLike(_ number: NodeNumber) -> String? {
        names.looksLike(number)
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
        var diagnostics = await transport.diagnostics()
        if let files { diagnostics.merge(await files.diagnostics()) { $1 } }
        return diagnostics
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
        changeRouter(.rename(updated))
        names.publish(directory: directory, identity: updated)
        await transport.updateIdentity(updated)
    }

    /// Finds a linked peer, or one known only from a conversation (to DM
    /// someone who is away, or decline someone who has gone).
    /// `heard`: peers known only by their beacons, whose names a link or a
    /// conversation under the same number overrides.
    func lookUpAnyone(_ name: String, heard: [PeerInfo] = []) throws(NodeError) -> NodeNumber {
        if let peer = try? directory.resolve(name) { return peer.number }
        var known = PeerDirectory()
        for peer in heard { known.upsert(peer) }
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
