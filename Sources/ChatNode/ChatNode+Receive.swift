import ChatCore
import ChatStore

/// The receive path: frame -> duplicate check against the store -> router
/// -> store -> events, acknowledgements and replies.
extension ChatNode {
    func receive(_ incoming: P2PPayload, from peer: NodeNumber) async {
        var payload = incoming
        counters.receivedByType[payload.type.name, default: 0] += 1
        let now = clock.nowMillis()
        lastHeard[peer] = now
        guard admitLive(payload, from: peer) else { return }
        if payload.type.carriesChatText {
            // A clock far ahead must not pin a message below everything else.
            if payload.timestamp > now + Self.maxClockSkew {
                payload.timestamp = now
                counters.clampedTimestamps += 1
            }
            // Stored before (a replay, a retry whose ack was lost): only
            // acknowledge again, so the sender stops retrying.
            if (try? await store.contains(payload.messageId)) == true, payload.senderNumber == peer {
                counters.duplicates += 1
                if payload.type.isDirect { await acknowledge(payload, to: peer) }
                return
            }
        }
        let result = router.route(payload, from: peer, at: now)
        for event in result.events {
            await apply(event, from: peer, payload: payload)
        }
        for reply in result.replies { await transport.send(reply, to: peer) }
    }

    /// Stores and reports one chat-core event caused by `payload`.
    func apply(_ event: ChatEvent, from peer: NodeNumber, payload: P2PPayload) async {
        switch event {
        case .message(let message):
            guard await persist(message) else { return }
            report(event)
            if message.room.peer != nil && message.senderNumber == peer { await acknowledge(payload, to: peer) }
        case .dmStateChanged(let number, let state):
            await persistConversation(number)
            if state == .declinedByPeer { await failOutbox(for: number) }
            report(event)
        case .control(let control):
            await handleControl(control, from: peer)
        case .rejected(_, .dmNotAccepted(let sender)) where router.directChat.state(with: sender) == .declinedByMe:
            // Tell a declined peer again, so its outbox stops retrying.
            if let frame = router.directChat.repeatDecline(to: sender, at: clock.nowMillis()) {
                await transport.send(frame, to: sender)
            }
            counters.rejected += 1
            report(event)
        case .rejected:
            counters.rejected += 1
            report(event)
        case .unknownType:
            counters.unknownType += 1
            report(event)
        default:
            report(event)
        }
    }

    /// Writes `message` to the store; false if it could not be stored (then
    /// it is not shown or acknowledged: the sender will retry).
    func persist(_ message: Message) async -> Bool {
        do {
            let isNew = try await store.insert(message)
            if activeRoom == message.room { try await store.markRead(message.room, upTo: HistoryCursor(message)) }
            return isNew
        } catch {
            logger.error("could not store message \(message.id): \(error)")
            return false
        }
    }

    func persistConversation(_ peer: NodeNumber) async {
        guard let conversation = router.directChat.conversation(with: peer) else { return }
        let nickname = directory[peer]?.nickname ?? conversation.peerNickname
        do {
            try await store.setConversation(peer: peer, nickname: nickname, state: conversation.state)
        } catch {
            logger.error("could not store conversation with \(peer): \(error)")
        }
    }

    /// Acknowledges a stored DM-kind frame.
    func acknowledge(_ payload: P2PPayload, to peer: NodeNumber) async {
        guard payload.type.carriesChatText else { return }
        let ack = P2PPayload(
            type: .ack, messageId: MessageID(millis: clock.nowMillis(), random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis(), targetNumber: peer, refId: payload.messageId)
        counters.acksSent += 1
        await transport.send(ack, to: peer)
    }

    /// Link and delivery frames the router hands back.
    func handleControl(_ payload: P2PPayload, from peer: NodeNumber) async {
        switch payload.type {
        case .ack:
            guard let id = payload.refId, let entry = outbox.entries[id], entry.payload.targetNumber == peer else { return }
            outbox.acknowledge(id)
            try? await store.setDelivery(.delivered, for: id)
            emit(.delivery(id, room: .direct(peer), .delivered))
        case .historyRequest:
            await answerCatchUp(payload, from: peer)
        case .historyReply:
            await absorbCatchUp(payload, from: peer)
        case .leave:
            linkLostAt[peer] = lastHeard[peer] ?? clock.nowMillis()
        default:
            break  // hello, ping, pong: the transport's business
        }
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
