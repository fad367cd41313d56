/// All 1:1 conversations: one per peer, each with the 240-character rule,
/// its own 100-message log and unread count, and the DM request flow
/// (`DMState`). Frames it returns must travel only on the target's link.
public struct DirectChat: Sendable {
    public var identity: NodeIdentity
    public private(set) var conversations: [NodeNumber: DirectConversation] = [:]
    private var ids = MessageIDGenerator()
    /// Where the ids of frames composed here take their random bits: a
    /// node's planner sets it from its step's input, so planning a step
    /// twice composes the same ids. Nil: the system generator.
    public var idRandom: SeededRandom?

    public init(identity: NodeIdentity) {
        self.identity = identity
    }

    public func conversation(with peer: NodeNumber) -> DirectConversation? { conversations[peer] }

    public func state(with peer: NodeNumber) -> DMState { conversations[peer]?.state ?? .none }

    /// Sends `text` to `peer`: a request if there is no conversation yet, an
    /// accept plus the message when replying to their request. Returns the
    /// frames to send in order, and the local events.
    public mutating func compose(
        _ text: String, to peer: NodeNumber, peerNickname: String, at timestamp: Int64, automatic: Bool = false
    ) throws(ChatError) -> (payloads: [P2PPayload], events: [ChatEvent]) {
        guard peer != identity.number else { throw .cannotMessageSelf }
        let content: String
        do { content = try MessageText.validated(text) } catch { throw .invalidText(error) }
        var conversation = conversations[peer] ?? DirectConversation(peer: peer, peerNickname: peerNickname)
        let step = try conversation.state.transition(on: .localSend, peer: peer)

        var payloads: [P2PPayload] = []
        if step.action == .sendAcceptAndMessage {
            payloads.append(control(.dmAccept, to: peer, at: timestamp, refId: conversation.lastRequestId))
        }
        let type: PayloadType = step.action == .sendRequest ? .dmRequest : .directMessage
        let payload = P2PPayload(
            type: type, messageId: nextID(millis: timestamp),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            content: content, timestamp: timestamp, targetNumber: peer, automatic: automatic ? true : nil)
        payloads.append(payload)
        let message = try! Message(from: payload, localNumber: identity.number)  // validated above
        _ = conversation.log.add(message, localNumber: identity.number)

        var events: [ChatEvent] = []
        if conversation.state != step.state { events.append(.dmStateChanged(peer: peer, step.state)) }
        conversation.state = step.state
        conversations[peer] = conversation
        return (payloads, events)
    }

    /// Writes `text` to `peer` without sending it (a DM held for a key
    /// change): the message joins the conversation's log, the request flow
    /// does not move. `release` sends it later with the same id.
    public mutating func hold(
        _ text: String, to peer: NodeNumber, peerNickname: String, at timestamp: Int64, automatic: Bool = false
    ) throws(ChatError) -> (message: Message, events: [ChatEvent]) {
        guard peer != identity.number else { throw .cannotMessageSelf }
        let content: String
        do { content = try MessageText.validated(text) } catch { throw .invalidText(error) }
        let payload = P2PPayload(
            type: .directMessage, messageId: nextID(millis: timestamp),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            content: content, timestamp: timestamp, targetNumber: peer, automatic: automatic ? true : nil)
        let message = try! Message(from: payload, localNumber: identity.number)  // validated above
        var conversation = conversations[peer] ?? DirectConversation(peer: peer, peerNickname: peerNickname)
        _ = conversation.log.add(message, localNumber: identity.number)
        conversations[peer] = conversation
        return (message, [.message(message)])
    }

    /// Sends a held DM as a DM composed now would go (a request, or an
    /// accept and the message, or the message), keeping its id, text and
    /// time. Throws as `compose` does (a second DM before the request is
    /// answered): the DM stays held.
    public mutating func release(_ message: Message, peerNickname: String, at now: Int64) throws(ChatError) -> (payloads: [P2PPayload], events: [ChatEvent]) {
        guard let peer = message.room.peer else { throw .notForMe(target: nil) }
        var conversation = conversations[peer] ?? DirectConversation(peer: peer, peerNickname: peerNickname)
        let step = try conversation.state.transition(on: .localSend, peer: peer)
        var payloads: [P2PPayload] = []
        if step.action == .sendAcceptAndMessage {
            payloads.append(control(.dmAccept, to: peer, at: now, refId: conversation.lastRequestId))
        }
        payloads.append(P2PPayload(
            type: step.action == .sendRequest ? .dmRequest : .directMessage, messageId: message.id,
            senderNumber: identity.number, senderNickname: message.senderNickname, senderStage: message.senderStage,
            content: message.content, timestamp: message.timestamp, targetNumber: peer, automatic: message.automatic ? true : nil))
        var events: [ChatEvent] = []
        if conversation.state != step.state { events.append(.dmStateChanged(peer: peer, step.state)) }
        conversation.state = step.state
        conversations[peer] = conversation
        return (payloads, events)
    }

    /// Accepts `peer`'s request. Returns the `dmAccept` frame (nil if the
    /// conversation was already accepted); its `refId` names the request
    /// when known (`DirectConversation.lastRequestId`), as do all answers.
    public mutating func accept(_ peer: NodeNumber, at timestamp: Int64) throws(ChatError) -> (payload: P2PPayload?, events: [ChatEvent]) {
        try answer(peer, input: .localAccept, at: timestamp)
    }

    /// Declines `peer`'s request (or closes an accepted conversation).
    public mutating func decline(_ peer: NodeNumber, at timestamp: Int64) throws(ChatError) -> (payload: P2PPayload?, events: [ChatEvent]) {
        try answer(peer, input: .localDecline, at: timestamp)
    }

    /// Takes a DM-kind frame from a peer. Returns local events and frames
    /// to send back (an automatic accept).
    public mutating func receive(_ payload: P2PPayload, at now: Int64) throws(ChatError) -> (events: [ChatEvent], replies: [P2PPayload]) {
        let input: DMInput
        switch payload.type {
        case .dmRequest: input = .receivedRequest
        case .dmAccept: input = .receivedAccept
        case .dmDecline: input = .receivedDecline
        case .directMessage: input = .receivedMessage
        default: throw .unexpectedType(payload.type)
        }
        guard payload.targetNumber == identity.number else { throw .notForMe(target: payload.targetNumber) }
        let peer = payload.senderNumber
        guard peer != identity.number else { throw .cannotMessageSelf }

        // Validate the text before changing any state: a bad frame changes nothing.
        var message: Message?
        if payload.type.carriesChatText {
            do { message = try Message(from: payload, localNumber: identity.number) } catch { throw .invalidText(error) }
        }
        var conversation = conversations[peer] ?? DirectConversation(peer: peer, peerNickname: payload.senderNickname)
        // A replayed message already in the log changes nothing, whatever the state.
        if let message, conversation.log.contains(message.id) {
            return ([.duplicate(message.id, .direct(peer))], [])
        }
        let step = try conversation.state.transition(on: input, peer: peer)
        // A stale answer from a peer we never talked to leaves no trace.
        if step.action == .ignore && conversations[peer] == nil { return ([], []) }
        conversation.peerNickname = payload.senderNickname

        var events: [ChatEvent] = []
        var replies: [P2PPayload] = []
        let wasAsking = conversation.state == .incomingRequest
        if conversation.state != step.state { events.append(.dmStateChanged(peer: peer, step.state)) }
        conversation.state = step.state
        if let message, step.action == .deliver || step.action == .deliverAndAccept {
            // A request, or a message that asks like one: what an answer names.
            if payload.type == .dmRequest || step.state == .incomingRequest { conversation.lastRequestId = payload.messageId }
            if case .added(let counted) = conversation.log.add(message, localNumber: identity.number) {
                if step.state == .incomingRequest && !wasAsking {
                    events.append(.dmRequested(peer: peer, nickname: payload.senderNickname, message: message))
                }
                events.append(.message(message))
                if counted { events.append(.unreadChanged(.direct(peer), count: conversation.log.unreadCount)) }
            }
        }
        if step.action == .deliverAndAccept {
            replies.append(control(.dmAccept, to: peer, at: now, refId: payload.messageId))
        }
        conversations[peer] = conversation
        return (events, replies)
    }

    /// Adds an already validated message (from the store or catch-up)
    /// without touching the request state.
    public mutating func add(_ message: Message, peerNickname: String) -> [ChatEvent] {
        guard let peer = message.room.peer else { return [] }
        var conversation = conversations[peer] ?? DirectConversation(peer: peer, peerNickname: peerNickname)
        defer { conversations[peer] = conversation }
        switch conversation.log.add(message, localNumber: identity.number) {
        case .duplicate: return [.duplicate(message.id, message.room)]
        case .added(let counted):
            var events: [ChatEvent] = [.message(message)]
            if counted { events.append(.unreadChanged(message.room, count: conversation.log.unreadCount)) }
            return events
        }
    }

    /// Restores a conversation (from the store): request state, and
    /// optionally its newest messages and unread count.
    public mutating func restore(peer: NodeNumber, peerNickname: String, state: DMState, messages: [Message] = [], unreadCount: Int = 0) {
        var conversation = conversations[peer] ?? DirectConversation(peer: peer, peerNickname: peerNickname)
        conversation.state = state
        if !messages.isEmpty || unreadCount > 0 { conversation.log.restore(messages, unreadCount: unreadCount) }
        conversations[peer] = conversation
    }

    public mutating func activate(_ peer: NodeNumber) -> [ChatEvent] {
        guard var conversation = conversations[peer] else { return [] }
        defer { conversations[peer] = conversation }
        return conversation.log.activate() ? [.unreadChanged(.direct(peer), count: 0)] : []
    }

    /// Clears a conversation's unread count without activating it.
    public mutating func markRead(_ peer: NodeNumber) -> [ChatEvent] {
        guard var conversation = conversations[peer] else { return [] }
        defer { conversations[peer] = conversation }
        return conversation.log.markRead() ? [.unreadChanged(.direct(peer), count: 0)] : []
    }

    /// Settles every conversation's log (see `RoomLog.settle()`), in place:
    /// the peers are listed first, since a loop over `conversations.values`
    /// would hold the dictionary and make every write below copy it.
    public mutating func settle() {
        let unsettled = conversations.compactMap { $0.value.log.isSettled ? nil : $0.key }
        for peer in unsettled { conversations[peer]?.log.settle() }
    }

    /// See `RoomLog.forget`.
    public mutating func forget(_ ids: Set<MessageID>, with peer: NodeNumber, unreadCount: Int?) {
        conversations[peer]?.log.forget(ids, unreadCount: unreadCount)
    }

    public mutating func deactivate(_ peer: NodeNumber) {
        conversations[peer]?.log.deactivate()
    }

    /// A `dmDecline` restating an earlier decline to a peer that keeps
    /// sending (its copy of the answer was lost); nil unless I declined it.
    /// Its `refId` names the request I declined, when known.
    public mutating func repeatDecline(to peer: NodeNumber, at timestamp: Int64) -> P2PPayload? {
        guard let conversation = conversations[peer], conversation.state == .declinedByMe else { return nil }
        return control(.dmDecline, to: peer, at: timestamp, refId: conversation.lastRequestId)
    }

    private mutating func answer(_ peer: NodeNumber, input: DMInput, at timestamp: Int64) throws(ChatError) -> (payload: P2PPayload?, events: [ChatEvent]) {
        guard var conversation = conversations[peer] else { throw .noPendingRequest(peer: peer) }
        let step = try conversation.state.transition(on: input, peer: peer)
        var events: [ChatEvent] = []
        if conversation.state != step.state { events.append(.dmStateChanged(peer: peer, step.state)) }
        conversation.state = step.state
        conversations[peer] = conversation
        switch step.action {
        case .sendAccept: return (control(.dmAccept, to: peer, at: timestamp, refId: conversation.lastRequestId), events)
        case .sendDecline: return (control(.dmDecline, to: peer, at: timestamp, refId: conversation.lastRequestId), events)
        default: return (nil, events)
        }
    }

    private mutating func nextID(millis: Int64) -> MessageID {
        guard var random = idRandom else { return ids.next(millis: millis) }
        defer { idRandom = random }
        return ids.next(millis: millis, using: &random)
    }

    private mutating func control(_ type: PayloadType, to peer: NodeNumber, at timestamp: Int64, refId: MessageID?) -> P2PPayload {
        P2PPayload(
            type: type, messageId: nextID(millis: timestamp),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: timestamp, targetNumber: peer, refId: refId)
    }
}
