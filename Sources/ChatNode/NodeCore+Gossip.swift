import ChatCore

/// Planning relayed public messages: the overlay's gossip, and the entries
/// of a catch-up reply (ChatNode+Gossip.swift says why a relayed message
/// is its author's only if its signature verifies).
extension NodeCore {
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

    /// Whether one entry of a history reply may be stored, judged before
    /// anything (timestamp clamping) changes it; `stored` holds the ids we
    /// already have. Refused and counted (in `counted`, the step's own
    /// counts, added to the node's when the step is applied): a public message claiming this
    /// node as author that we do not hold (no one else can write ours; the
    /// ones we hold come back inside the catch-up window and are harmless),
    /// and one whose signature fails, unsigned included. Other types pass,
    /// for the caller's own validity check.
    func admitRelayed(_ frame: P2PPayload, from peer: NodeNumber, stored: Set<MessageID>,
                      counting counted: inout NodeCounters) -> Bool {
        guard frame.type == .publicMessage else { return true }
        if frame.senderNumber == identity.number {
            if stored.contains(frame.messageId) { return true }
            counted.relayedClaimingSelf += 1
            logger.debug("refused relayed \(frame.messageId) from \(peer): claims to be ours")
            return false
        }
        guard let authenticator else { return true }
        let verdict = authenticator.verify(frame)
        guard verdict.isValid else {
            counted.signatureRefusals[verdict.rawValue, default: 0] += 1
            logger.debug("refused relayed \(frame.messageId) from \(peer): \(verdict)")
            return false
        }
        return true
    }
}
