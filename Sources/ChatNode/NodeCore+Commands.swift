import ChatCore

/// Planning the user's commands (send, DM, accept, decline) on the step's
/// copy of the router. A refused command is answered at once and plans
/// nothing; the others are answered after the commit.
extension NodeCore {
    /// Plans the step's commands in their order, except that its public
    /// sends take their places in the order of their ids: each was signed
    /// in its caller's task, so concurrent sends can arrive out of the
    /// order their ids were taken, and they go out in that order.
    func planCommands(_ commands: [PendingCommand], now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan) {
        let sends = commands.compactMap { command -> (id: MessageID, command: PendingCommand)? in
            if case .sendPublic(let payload, _) = command.command { (payload.messageId, command) } else { nil }
        }.sorted { $0.id < $1.id }
        var nextSend = 0
        for command in commands {
            if case .sendPublic = command.command {
                planCommand(sends[nextSend].command, now: now, on: &scratch, into: &plan)
                nextSend += 1
            } else {
                planCommand(command, now: now, on: &scratch, into: &plan)
            }
        }
    }

    func planCommand(_ command: PendingCommand, now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan) {
        do throws(NodeError) {
            switch command.command {
            case .sendPublic(let payload, let message):
                if payload.signature == nil, authenticator != nil {
                    logger.error("could not sign public message \(payload.messageId); peers will refuse it")
                }
                _ = scratch.publicChat.add(message)  // a fresh id: never a duplicate
                planPublic((payload, message), into: &plan)
                plan.effects.append(.resume(command, .success(message)))
            case .sendDirect(let text, let peer, let automatic):
                let message = try planDirect(text, to: peer, automatic: automatic, now: now, on: &scratch, into: &plan)
                plan.effects.append(.resume(command, .success(message)))
            case .answer(let peer, let accepting):
                try planAnswer(peer, accepting: accepting, now: now, on: &scratch, into: &plan)
                plan.effects.append(.resume(command, .success(nil)))
            case .holdDirect(let text, let peer, let automatic):
                let message = try planHold(text, to: peer, automatic: automatic, now: now, on: &scratch, into: &plan)
                plan.effects.append(.resume(command, .success(message)))
            case .releaseHeld(let messages, let peer):
                planRelease(messages, to: peer, now: now, on: &scratch, into: &plan)
                plan.effects.append(.resume(command, .success(nil)))
            case .discardHeld(let ids, let peer):
                planDiscard(ids, to: peer, into: &plan)
                plan.effects.append(.resume(command, .success(nil)))
            }
            plan.commands.append(command)
        } catch {
            plan.notices.append(.refused(command, error))
        }
    }

    /// A public message composed (on the step's router copy) and signed.
    func planPublic(_ composed: (payload: P2PPayload, message: Message), into plan: inout NodePlan) {
        plan.changes.messages.append(composed.message)
        // Writing in a room means having read it up to here.
        plan.changes.markRead(.publicRoom, upTo: HistoryCursor(composed.message))
        plan.effects.append(.broadcast(composed.payload))
        plan.report(.message(composed.message))
    }

    private func planDirect(
        _ text: String, to peer: NodeNumber, automatic: Bool, now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan
    ) throws(NodeError) -> Message {
        let nickname = directory[peer]?.nickname ?? scratch.directChat.conversation(with: peer)?.peerNickname ?? "\(peer)"
        let composed: (payloads: [P2PPayload], events: [ChatEvent])
        // Replying to a request accepts it: what the peer sent while
        // unknown leaves the shared pool (ChatNode+TrustPools.swift).
        if scratch.directChat.state(with: peer) == .incomingRequest { plan.changes.unpooled.insert(peer) }
        do {
            composed = try scratch.directChat.compose(text, to: peer, peerNickname: nickname, at: now, automatic: automatic)
        } catch { throw .chat(error) }
        let sent = composed.payloads.last!
        let message = try! Message(from: sent, localNumber: identity.number)  // composed from validated text
        plan.changes.messages.append(message)
        plan.changes.markRead(message.room, upTo: HistoryCursor(message))
        planOutgoing(composed.payloads, reporting: composed.events + [.message(message)], to: peer, on: scratch, into: &plan)
        return message
    }

    /// Sends a DM's frames (`frames.last` is the DM, any before it control
    /// frames) once the step is committed, reports `events`, and puts the
    /// DM in the outbox: a DM composed now, or a held one released.
    func planOutgoing(
        _ frames: [P2PPayload], reporting events: [ChatEvent], to peer: NodeNumber, on scratch: MessageRouter, into plan: inout NodePlan
    ) {
        let sent = frames.last!
        let room = RoomID.direct(peer)
        // The DM and its delivery state in the same transaction: no kill
        // can leave one without the other. To a peer linked now the frame
        // goes straight after this commit, so it is committed as "sent"
        // here: no second commit (fsync) between the DM and its ack. A kill
        // before the write leaves it "sent" and unacknowledged: the outbox
        // sends it again after a restart, as any unacknowledged DM.
        let sendNow = directory[peer] != nil
        plan.changes.setDelivery(sendNow ? .sent : .queued, for: sent.messageId)
        plan.queued[peer, default: []].append(sent.messageId)
        planConversation(peer, on: scratch, into: &plan)
        // An accept that precedes a reply is a control frame, not queued.
        for frame in frames.dropLast() { plan.effects.append(.send(frame, to: peer)) }
        for event in events { plan.report(event) }
        // "queued" is said before anything can say "sent".
        plan.effects.append(.emit(.delivery(sent.messageId, room: room, .queued)))
        if sendNow {
            plan.effects.append(.send(sent, to: peer))
            plan.effects.append(.emit(.delivery(sent.messageId, room: room, .sent)))
            plan.effects.append(.enqueueSent(sent))
        } else {
            plan.effects.append(.enqueue(sent))
        }
    }

    private func planAnswer(
        _ peer: NodeNumber, accepting: Bool, now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan
    ) throws(NodeError) {
        let answer: (payload: P2PPayload?, events: [ChatEvent])
        do {
            answer = accepting ? try scratch.directChat.accept(peer, at: now) : try scratch.directChat.decline(peer, at: now)
        } catch { throw .chat(error) }
        planConversation(peer, on: scratch, into: &plan)
        // Accepted: the request and whatever else the peer sent while
        // unknown leave the shared pool (they would age out there).
        if accepting { plan.changes.unpooled.insert(peer) }
        if !accepting { planFailOutbox(peer, into: &plan) }
        if let payload = answer.payload { plan.effects.append(.send(payload, to: peer)) }
        for event in answer.events { plan.report(event) }
    }
}
