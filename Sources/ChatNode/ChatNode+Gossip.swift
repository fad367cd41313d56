import ChatCore

/// Public messages relayed by a peer other than their author: the
/// overlay's gossip (PROTOCOL.md, "Overlay"). A transport hands such a
/// frame over only from the overlay (on a plain link a frame naming
/// another sender cuts the link), so the link cannot vouch for it: like a
/// message relayed in a catch-up reply, it is its author's only if its
/// signature verifies (`admitLive`, before anything changes it), it is
/// never taken as this node's own, and an id already stored is a
/// duplicate, whoever relays it.
extension ChatNode {
    /// Whether `payload` came relayed rather than from its author's link.
    static func isRelayedPublic(_ payload: P2PPayload, from peer: NodeNumber) -> Bool {
        payload.type == .publicMessage && payload.senderNumber != peer
    }

    /// Plans a relayed public message (its signature was checked): into
    /// the public room and the step's commit if new and within its
    /// author's storage class.
    func planRelayedPublic(
        _ payload: P2PPayload, from peer: NodeNumber, stored: Set<MessageID>, now: Int64,
        on scratch: inout MessageRouter, into plan: inout NodePlan
    ) {
        if stored.contains(payload.messageId) {
            plan.counted.duplicates += 1
            return
        }
        if payload.senderNumber == identity.number {
            plan.counted.relayedClaimingSelf += 1
            logger.debug("refused relayed \(payload.messageId) from \(peer): claims to be ours")
            return
        }
        let message: Message
        do {
            message = try Message(from: payload, localNumber: identity.number)
        } catch {
            plan.counted.rejected += 1
            plan.report(.rejected(from: peer, .invalidText(error)))
            return
        }
        guard admitToStorage(payload, now: now, on: scratch, into: &plan) else { return }
        for event in scratch.publicChat.add(message) {
            if case .message(let added) = event {
                plan.changes.messages.append(added)
                if activeRoom == added.room { plan.changes.markRead(added.room, upTo: HistoryCursor(added)) }
            }
            plan.report(event)
        }
    }
}
