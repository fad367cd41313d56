import ChatCore

/// Planning the receive path: frame -> duplicate check (against the store,
/// looked up for the whole step) -> router (on the step's copy) -> rows to
/// commit and effects for after the commit.
extension NodeCore {
    func planReceive(
        _ payload: P2PPayload, from peer: NodeNumber, stored: Set<MessageID>, now: Int64,
        on scratch: inout MessageRouter, into plan: inout NodePlan
    ) {
        // Only signed messages may be relayed: without an authenticator the router refuses them.
        if authenticator != nil, ChatNode.isRelayedPublic(payload, from: peer) {
            planRelayedPublic(payload, from: peer, stored: stored, now: now, on: &scratch, into: &plan)
            return
        }
        // Stored before (a replay, a retry whose ack was lost): only
        // acknowledge again, so the sender stops retrying.
        if payload.type.carriesChatText, stored.contains(payload.messageId), payload.senderNumber == peer {
            plan.counted.duplicates += 1
            if payload.type.isDirect { plan.effects.append(.acknowledge(payload, to: peer)) }
            return
        }
        // Where its author's class puts it; over a known author's quota it
        // is refused before it touches anything (a DM from a peer I declined
        // is refused below anyway, with the repeated decline that stops its
        // retries).
        if payload.type.carriesChatText,
           !(payload.type.isDirect && scratch.directChat.state(with: payload.senderNumber) == .declinedByMe),
           !admitToStorage(payload, now: now, on: scratch, into: &plan) { return }
        let result = scratch.receive(payload, from: peer, at: now)
        for event in result.events {
            switch event {
            case .message(let message):
                plan.changes.messages.append(message)
                // The room being read is read up to here.
                if activeRoom == message.room { plan.changes.markRead(message.room, upTo: HistoryCursor(message)) }
                plan.report(event)
                if message.room.peer != nil && message.senderNumber == peer {
                    plan.effects.append(.acknowledge(payload, to: peer))
                }
            case .dmStateChanged(let number, let state):
                planConversation(number, on: scratch, into: &plan)
                if state == .declinedByPeer { planFailOutbox(number, into: &plan) }
                plan.report(event)
            case .control(let control):
                planControl(control, from: peer, stored: stored, now: now, on: &scratch, into: &plan)
            case .rejected(_, .dmNotAccepted(let sender)) where scratch.directChat.state(with: sender) == .declinedByMe:
                // Tell a declined peer again, so its outbox stops retrying.
                if let frame = scratch.directChat.repeatDecline(to: sender, at: now) {
                    plan.effects.append(.send(frame, to: sender))
                }
                plan.counted.rejected += 1
                plan.report(event)
            case .rejected:
                plan.counted.rejected += 1
                plan.report(event)
            case .unknownType:
                plan.counted.unknownType += 1
                plan.report(event)
            default:
                plan.report(event)
            }
        }
        for reply in result.replies { plan.effects.append(.send(reply, to: peer)) }
    }

    /// Link and delivery frames the router hands back.
    func planControl(
        _ payload: P2PPayload, from peer: NodeNumber, stored: Set<MessageID>, now: Int64,
        on scratch: inout MessageRouter, into plan: inout NodePlan
    ) {
        switch payload.type {
        case .ack:
            guard let id = payload.refId, let entry = outbox.entries[id], entry.payload.targetNumber == peer else { return }
            plan.changes.setDelivery(.delivered, for: id)
            plan.effects.append(.delivered(id, peer: peer))
        case .historyRequest:
            plan.effects.append(.answerCatchUp(payload, from: peer))
        case .historyReply:
            planCatchUpReply(payload, from: peer, stored: stored, now: now, on: &scratch, into: &plan)
        case .leave:
            plan.effects.append(.linkLost(peer))
        case .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone:
            // Not chat: file transfers keep their own state (FileTransfers.swift).
            plan.notices.append(.file(payload, from: peer, dmState: scratch.directChat.state(with: peer)))
        default:
            break  // hello, ping, pong: the transport's business
        }
    }

    /// The conversation's row as `scratch` has it.
    func planConversation(_ peer: NodeNumber, on scratch: MessageRouter, into plan: inout NodePlan) {
        guard let conversation = scratch.directChat.conversation(with: peer) else { return }
        let nickname = directory[peer]?.nickname ?? conversation.peerNickname
        plan.changes.conversations[peer] = ConversationRow(nickname: nickname, state: conversation.state)
    }

    /// The peer declined (or I did): its waiting DMs, including those this
    /// step queues, fail for good.
    func planFailOutbox(_ peer: NodeNumber, into plan: inout NodePlan) {
        let waiting = outbox.waiting(for: peer)
        for id in waiting + (plan.queuedBefore[peer] ?? []) + (plan.queued[peer] ?? []) { plan.changes.setDelivery(.failed, for: id) }
        plan.effects.append(.failOutbox(peer))
    }
}
