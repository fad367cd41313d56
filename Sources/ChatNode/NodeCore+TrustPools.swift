import ChatCore

/// A message's storage class and quota, decided in the plan
/// (ChatNode+TrustPools.swift describes the classes and the pool).
extension NodeCore {
    /// The class of a message by `author` in `room`, on the step's router.
    func storageTrust(of author: NodeNumber, in room: RoomID, on scratch: MessageRouter, standing: AuthorStanding?, now: Int64) -> StorageTrust {
        if author == identity.number { return .own }
        let state = scratch.directChat.state(with: author)
        let talkedWith = state == .accepted || state == .outgoingRequest
        if talkedWith && room == .direct(author) { return .own }
        // The key ledger's word (ChatNode+Keys.swift): a key the user
        // verified, or one the user talked with; a changed key is neither.
        let ledger = ledgerTrust[author]?.state
        if ledger == .verified || options.verifiedPeers(author) { return .verified }
        if talkedWith || ledger == .known { return .known }
        if let first = standing?.firstSeen, now - first >= NodeLimits.knownAfterMillis { return .known }
        return .unknown
    }

    /// Whether a message of `bytes` by `author` in `room` is stored; if so
    /// it is counted in `plan` (pooled if its author is unknown), if not
    /// the refusal is counted and, once per peer, announced after the commit.
    func admitToStorage(
        id: MessageID, author: NodeNumber, nickname: String, bytes: Int, room: RoomID, now: Int64,
        on scratch: MessageRouter, into plan: inout NodePlan
    ) -> Bool {
        let standing = plan.standing[author]
        // Once per author and kind of room a step: a flood's thousands of
        // messages by one author cost one classification.
        let key = TrustKey(author: author, direct: room != .publicRoom)
        let trust: StorageTrust
        if let known = plan.trust[key] {
            trust = known
        } else {
            trust = storageTrust(of: author, in: room, on: scratch, standing: standing, now: now)
            plan.trust[key] = trust
        }
        switch trust {
        case .own:
            if (standing?.pooledMessages ?? 0) > 0 { plan.changes.unpooled.insert(author) }
            return true
        case .unknown:
            plan.changes.pooled.insert(id)
            return true
        case .verified, .known:
            if (standing?.pooledMessages ?? 0) > 0 { plan.changes.unpooled.insert(author) }
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
    }

    /// A live chat frame's check (its fields as sent: the stored text,
    /// trimmed, is at most this long).
    func admitToStorage(_ payload: P2PPayload, now: Int64, on scratch: MessageRouter, into plan: inout NodePlan) -> Bool {
        let room: RoomID = payload.type.isDirect ? .direct(payload.senderNumber) : .publicRoom
        return admitToStorage(
            id: payload.messageId, author: payload.senderNumber, nickname: payload.senderNickname,
            bytes: StorageUsage.bytes(content: payload.content, nickname: payload.senderNickname,
                                      stage: payload.senderStage, signature: payload.signature, authorKey: payload.authorKey),
            room: room, now: now, on: scratch, into: &plan)
    }

    /// What may age out for the step's messages if the files are full
    /// (`AgeingOrder`), ranked by the highest class among them: the user's
    /// own (theirs, and DMs of the user's conversations), a verified
    /// peer's, a known peer's (stored outside the pool), or only the
    /// pool's. Nil if the step stores none. The user's conversations as
    /// the step leaves them; verified: the key ledger's, and those this
    /// step found.
    func ageingOrder(
        for messages: [Message], pooled: Set<MessageID>, on scratch: MessageRouter, classes: [TrustKey: StorageTrust]
    ) -> AgeingOrder? {
        guard !messages.isEmpty else { return nil }
        let me = identity.number
        let chats = scratch.directChat
        func isConversation(_ state: DMState) -> Bool { state == .accepted || state == .outgoingRequest }
        var verified = self.verified
        for (key, trust) in classes where trust == .verified { verified.insert(key.author) }
        let rank: AgeingOrder.Rank
        if messages.contains(where: { message in
            message.senderNumber == me || message.room.peer.map { isConversation(chats.state(with: $0)) } ?? false
        }) {
            rank = .own
        } else if messages.contains(where: { !pooled.contains($0.id) && verified.contains($0.senderNumber) }) {
            rank = .verified
        } else {
            rank = messages.contains { !pooled.contains($0.id) } ? .known : .unknown
        }
        let conversations = chats.conversations.values.filter { isConversation($0.state) }.map { RoomID.direct($0.peer) }
        return AgeingOrder(conversations: Set(conversations), verified: verified, rank: rank)
    }

    // MARK: Adoption

    /// A commit aged pool messages out: the rooms' memory follows the
    /// file (the messages leave the rooms' buffers, unread counts are the
    /// store's), on the adopted router and on the copy the next step was
    /// planned on. Returns the unread counts to say, after the step's own
    /// reports (which were planned before the ageing). Counted (`agedOut`).
    mutating func forgetAgedOut(_ result: StoreCommitResult, next: inout PlannedStep?) -> [NodeEffect] {
        guard !result.agedOut.isEmpty else { return [] }
        var corrections: [NodeEffect] = []
        for (room, ids) in result.agedOut {
            counters.agedOut += ids.count
            let forgotten = Set(ids)
            let before = router.unreadCount(in: room)
            router.forget(forgotten, in: room, unreadCount: result.unread[room])
            let after = router.unreadCount(in: room)
            // The next step's copy counts its own messages on top: it moves
            // by as much as this step's count did.
            if let planned = next?.scratch.unreadCount(in: room) {
                next?.scratch.forget(forgotten, in: room, unreadCount: planned + after - before)
                // Its report was planned on the count before the ageing, and
                // is said after this correction: it says the corrected count.
                if let corrected = next?.scratch.unreadCount(in: room) { next?.plan.correctUnread(room, to: corrected) }
            }
            if after != before { corrections.append(.emit(.unread(room, count: after))) }
        }
        return corrections
    }
}
