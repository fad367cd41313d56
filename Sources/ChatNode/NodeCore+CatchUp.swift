import ChatCore

/// Planning the merge of a catch-up reply (ChatNode+CatchUp.swift carries
/// requests and pages to the transport and the store).
extension NodeCore {
    /// Plans the merge of a history reply: valid public messages we do not
    /// hold join the room and the step's commit, with the peer's cursor.
    /// Changes only `scratch` and `plan` (`CatchUpState.planReply` decides
    /// whether the reply answers anything).
    func planCatchUpReply(
        _ reply: P2PPayload, from peer: NodeNumber, stored: Set<MessageID>, now: Int64,
        on scratch: inout MessageRouter, into plan: inout NodePlan
    ) {
        let answered = plan.catchUpAnsweredBefore.union(plan.catchUpPages.map(\.request.id))
        guard var page = catchUp.planReply(reply, from: peer, answeredEarlier: answered) else {
            plan.counted.catchUpUnsolicited += 1
            logger.notice("refused a history reply from \(peer) that answers no request")
            return
        }
        var fresh = 0
        var seen = Set<MessageID>()
        var signed: [P2PPayload] = []
        for var frame in reply.messages ?? [] {
            // Judged as the author sent it, before the clamp changes it.
            guard admitRelayed(frame, from: peer, stored: stored, counting: &plan.counted) else { continue }
            let asSigned = frame
            ChatNode.clampTimestamp(&frame, now: now, counters: &plan.counted)
            guard frame.type == .publicMessage, let message = try? Message(from: frame, localNumber: identity.number),
                  seen.insert(message.id).inserted else {
                plan.counted.catchUpInvalid += 1
                continue
            }
            if stored.contains(message.id) { continue }
            guard admitToStorage(id: message.id, author: message.senderNumber, nickname: message.senderNickname,
                                 bytes: StorageUsage.bytes(of: message), room: message.room, now: now,
                                 on: scratch, into: &plan) else { continue }
            let events = scratch.publicChat.add(message)
            if events.contains(where: { if case .message = $0 { true } else { false } }) {
                plan.changes.messages.append(message)
                fresh += 1
                signed.append(asSigned)
            }
            for event in events { plan.report(event) }
        }
        if let cursor = page.cursor { plan.changes.settings[CatchUpState.key(peer)] = cursor.stored }
        page.fresh = fresh
        plan.catchUpPages.append(page)
        plan.effects.append(.caughtUp(page))
        if !signed.isEmpty { plan.effects.append(.spread(signed)) }
    }
}
