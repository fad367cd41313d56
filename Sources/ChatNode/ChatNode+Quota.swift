import ChatCore
import ChatStore

/// The per-peer storage quota, enforced in the plan: before a message by
/// another peer joins a step, its author's stored bytes (read from the
/// store when the step starts, plus what the step already admitted) must
/// stay within `NodeOptions.peerStorageQuota`.
///
/// Over it, the peer's *new* messages are refused, not its oldest pruned:
/// a flood then costs no disk writes at all, nothing the user already has
/// (that peer's earlier messages included) is erased by it, and it matches
/// the total quota, which also refuses rather than deletes. A refused
/// message leaves no trace: it is not stored, shown, acknowledged (a DM's
/// sender keeps retrying), or taken as seen. The user's own messages and
/// other peers' are unaffected. Refusals are counted (`quotaRefused`), and
/// said once per peer per run (`NodeEvent.peerQuota`), not per message.
extension ChatNode {
    /// Adds the authors whose quota `payload` touches: a live chat frame's
    /// or catch-up entries' authors, anyone but this node.
    func quotaAuthors(of payload: P2PPayload, into authors: inout Set<NodeNumber>) {
        let me = identity.number
        if payload.type.carriesChatText, payload.senderNumber != me { authors.insert(payload.senderNumber) }
        for entry in payload.messages ?? [] where entry.senderNumber != me { authors.insert(entry.senderNumber) }
    }

    /// Whether a message of `bytes` by `author` fits its quota; if so it is
    /// counted in `plan`, if not the refusal is counted and, once per peer,
    /// announced after the commit.
    func admitToQuota(author: NodeNumber, nickname: String, bytes: Int, into plan: inout NodePlan) -> Bool {
        guard author != identity.number else { return true }
        var usage = plan.authorUsage[author] ?? StorageUsage()
        guard usage.bytes + bytes <= options.peerStorageQuota else {
            plan.counted.quotaRefused += 1
            if !quotaReported.contains(author), plan.quotaReached.insert(author).inserted {
                plan.effects.append(.quotaReached(author, nickname: nickname, used: usage))
            }
            return false
        }
        usage.add(bytes)
        plan.authorUsage[author] = usage
        return true
    }

    /// A live chat frame's quota check (its fields as sent: the stored text,
    /// trimmed, is at most this long).
    func admitToQuota(_ payload: P2PPayload, into plan: inout NodePlan) -> Bool {
        admitToQuota(author: payload.senderNumber, nickname: payload.senderNickname,
                     bytes: StorageUsage.bytes(content: payload.content, nickname: payload.senderNickname,
                                               stage: payload.senderStage, signature: payload.signature, authorKey: payload.authorKey),
                     into: &plan)
    }

    /// Says once per peer (per run) that its messages are no longer stored.
    func reportQuota(_ peer: NodeNumber, nickname: String, used: StorageUsage) {
        guard quotaReported.insert(peer).inserted else { return }
        let name = TerminalText.sanitize(nickname)
        logger.warning("peer \(peer) (\(name)) reached its storage quota (\(used.messages) messages, \(used.bytes) of \(options.peerStorageQuota) bytes): its new messages are not stored")
        emit(.peerQuota(peer: peer, nickname: nickname, quotaBytes: options.peerStorageQuota))
    }
}
