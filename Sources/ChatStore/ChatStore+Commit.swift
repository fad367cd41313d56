import ChatCore

/// One transaction per node step (see `StoreChanges`).
extension ChatStore {
    /// Writes `changes` in one transaction (one commit, so one fsync with
    /// `.full` durability, but for `delivered` marks alone:
    /// `StoreChanges.holdsOnlyDeliveredMarks`): messages (and the pool's
    /// ageing out), then delivery states, conversations and read markers.
    /// All or nothing: on
    /// error nothing is stored and the caller must not change its memory
    /// either. Refused by a full disk or cap while the pool holds
    /// messages, or with an ageing order (`AgeingOrder`: the user's own,
    /// or a peer's by fair shares), it is tried again with room made first
    /// (ChatStore+StoragePressure.swift).
    @discardableResult
    public func commit(_ changes: StoreChanges) throws(StoreError) -> StoreCommitResult {
        if changes.isEmpty { return StoreCommitResult() }
        let reclaim = try reclaimBeforeCommit(changes)
        var room: RoomToMake?
        var retry = 0
        while true {
            do {
                let result = try attempt(changes, reclaim: reclaim, making: room)
                foldSearchIndex(added: result.added.count)
                return result
            } catch where error.isFull && !changes.messages.isEmpty {
                retry += 1
                guard changes.ageingOrder != nil || (try? poolUsage().messages) ?? 0 > 0,
                      let more = roomToMake(retry: retry, changes: changes) else { throw error }
                room = more
                logger.debug("commit refused (\(error)); trying again with room made first (\(more))")
            }
        }
    }

    private func attempt(_ changes: StoreChanges, reclaim: Int, making room: RoomToMake?) throws(StoreError) -> StoreCommitResult {
        // Delivered marks alone skip the fsync: their loss is repaired by a resend (Durability.md).
        let level: StoreDurability? = relaxesDeliveredMarks && changes.holdsOnlyDeliveredMarks ? .normal : nil
        return try db().transaction(synchronous: level) { () throws(StoreError) -> StoreCommitResult in
            if !changes.unpooled.isEmpty { try unpool(changes.unpooled) }
            var result = try insertRows(changes, reclaim: reclaim, making: room)
            for (id, state) in changes.deliveries.sorted(by: { $0.key < $1.key }) {
                try setDelivery(state, for: id)
            }
            for (peer, row) in changes.conversations.sorted(by: { $0.key < $1.key }) {
                try setConversation(peer: peer, nickname: row.nickname, state: row.state)
            }
            for (key, value) in changes.settings.sorted(by: { $0.key < $1.key }) {
                try setValue(value, forKey: key)
            }
            // A marker planned by a send or a live message moves only if no
            // unread message the reader was never shown lies before it.
            for (room, cursor) in changes.readMarkers {
                result.unread[room] = try markRead(room, shownFrom: cursor, upTo: cursor)
            }
            return result
        }
    }
}
