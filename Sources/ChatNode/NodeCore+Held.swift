import ChatCore

/// Planning DMs held for a key change: hold, release, discard
/// (ChatNode+KeysHeld.swift carries them).
extension NodeCore {
    func planHold(
        _ text: String, to peer: NodeNumber, automatic: Bool, now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan
    ) throws(NodeError) -> Message {
        let nickname = directory[peer]?.nickname ?? scratch.directChat.conversation(with: peer)?.peerNickname ?? "\(peer)"
        let held: (message: Message, events: [ChatEvent])
        do {
            held = try scratch.directChat.hold(text, to: peer, peerNickname: nickname, at: now, automatic: automatic)
        } catch { throw .chat(error) }
        let message = held.message
        plan.changes.messages.append(message)
        plan.changes.setDelivery(.held, for: message.id)
        plan.changes.markRead(message.room, upTo: HistoryCursor(message))
        planConversation(peer, on: scratch, into: &plan)
        for event in held.events { plan.report(event) }
        plan.effects.append(.emit(.delivery(message.id, room: message.room, .held)))
        plan.effects.append(.heldChanged(peer, adding: [message], removing: []))
        return message
    }

    func planRelease(_ messages: [Message], to peer: NodeNumber, now: Int64, on scratch: inout MessageRouter, into plan: inout NodePlan) {
        let nickname = directory[peer]?.nickname ?? scratch.directChat.conversation(with: peer)?.peerNickname ?? "\(peer)"
        var released: [MessageID] = []
        for message in messages {
            guard let frames = try? scratch.directChat.release(message, peerNickname: nickname, at: now) else { continue }
            planOutgoing(frames.payloads, reporting: frames.events, to: peer, on: scratch, into: &plan)
            released.append(message.id)
        }
        plan.effects.append(.heldChanged(peer, adding: [], removing: released))
    }

    func planDiscard(_ ids: [MessageID], to peer: NodeNumber, into plan: inout NodePlan) {
        for id in ids {
            plan.changes.setDelivery(.discarded, for: id)
            plan.effects.append(.emit(.delivery(id, room: .direct(peer), .discarded)))
        }
        plan.effects.append(.heldChanged(peer, adding: [], removing: ids))
    }
}
