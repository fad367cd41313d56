import ChatCore

/// Storage shared by trust (`StorageTrust`), decided in the plan: before a
/// message by another peer joins a step, its author's class says where it
/// goes.
///
/// - own (the user's, and DMs of conversations the user accepted or
///   started): stored, no quota;
/// - verified and known: their own room, the per-peer quota
///   (`NodeOptions.peerStorageQuota`, from the author's stored bytes read
///   when the step starts plus what the step already admitted). Over it,
///   the peer's *new* messages are refused, not its oldest deleted: a
///   flood by a known peer costs no writes and erases nothing the user
///   has. A refused message leaves no trace (not stored, shown,
///   acknowledged, or taken as seen); refusals are counted
///   (`quotaRefused`) and said once per peer per run (`.peerQuota`);
/// - unknown: always stored, into the one pool all unknown authors share
///   (`NodeOptions.unknownPoolBytes`); the commit ages the pool's oldest
///   out to make room, so a flood of fresh keys pushes out older unknown
///   chatter but never stops a new message from being stored and shown.
///
/// An author that becomes known (a day after its first stored message,
/// or when the user accepts its conversation) takes its pooled messages
/// out of the pool in the same commit.
///
/// When the files are full (`--max-history`, or the disk), a step makes
/// room in its commit (`AgeingOrder`), never from the user's
/// conversations. One storing the user's own messages: the pool's oldest,
/// then known peers', then verified peers', then the user's own oldest
/// public messages. One storing peers' messages: as fair shares allow,
/// the pool keeping an eighth of what is stored for others and each class
/// its newest (ChatStore+FairShare.swift).
extension ChatNode {
    /// Adds the authors whose class `payload` touches: a live chat frame's
    /// or catch-up entries' authors, anyone but this node.
    func quotaAuthors(of payload: P2PPayload, into authors: inout Set<NodeNumber>) {
        let me = identity.number
        if payload.type.carriesChatText, payload.senderNumber != me { authors.insert(payload.senderNumber) }
        for entry in payload.messages ?? [] where entry.senderNumber != me { authors.insert(entry.senderNumber) }
    }

    /// Says once per peer (per run) that its messages are no longer stored.
    func reportQuota(_ peer: NodeNumber, nickname: String, used: StorageUsage) {
        guard quotaReported.insert(peer).inserted else { return }
        let name = TerminalText.sanitize(nickname)
        logger.warning("peer \(peer) (\(name)) reached its storage quota (\(used.messages) messages, \(used.bytes) of \(options.peerStorageQuota) bytes): its new messages are not stored")
        emit(.peerQuota(peer: peer, nickname: nickname, quotaBytes: options.peerStorageQuota))
    }
}
