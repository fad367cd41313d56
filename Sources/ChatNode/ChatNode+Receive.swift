import ChatCore

/// The receive path's effects once a step is committed: acknowledgements,
/// the node's own frame ids, and chat events as the front end sees them
/// (the path is planned in NodeCore+Receive.swift).
extension ChatNode {
    /// Acknowledges a stored DM-kind frame.
    func acknowledge(_ payload: P2PPayload, to peer: NodeNumber) async {
        guard payload.type.carriesChatText else { return }
        let ack = P2PPayload(
            type: .ack, messageId: nextMessageID(),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis(), targetNumber: peer, refId: payload.messageId)
        counters.acksSent += 1
        await transport.send(ack, to: peer)
    }

    /// The next id for a frame the node itself sends (`messageIDs`).
    func nextMessageID() -> MessageID {
        messageIDs.next(millis: clock.nowMillis())
    }

    /// Turns a chat-core event into what the front end sees.
    func report(_ event: ChatEvent) {
        switch event {
        case .message(let message):
            emit(.message(message))
        case .dmRequested(let number, let nickname, let message):
            let peer = directory[number] ?? PeerInfo(number: number, nickname: nickname, instanceId: "", address: "")
            emit(.dmRequest(peer, message: message))
        case .dmStateChanged(let number, let state):
            let nickname = directory[number]?.nickname ?? router.directChat.conversation(with: number)?.peerNickname ?? "\(number)"
            emit(.dmState(peer: number, nickname: nickname, state))
            fileNotices?.yield(.dmState(number, state))
        case .unreadChanged(let room, let count):
            emit(.unread(room, count: count))
        case .rejected(let from, let error):
            logger.notice("rejected frame from \(from): \(error)")
            emit(.rejected(from: from, reason: error.description))
        case .unknownType(let from, let name):
            logger.debug("skipped frame of unknown type \(name.prefix(40)) from \(from)")
        case .duplicate:
            counters.duplicates += 1
        case .control:
            break
        }
    }
}
