import ChatCore

/// One transaction per node step (see `StoreChanges`).
extension ChatStore {
    /// Writes `changes` in one transaction (one commit, so one fsync with
    /// `.full` durability): messages (and the pool's ageing out), then
    /// delivery states, conversations and read markers. All or nothing: on
    /// error nothing is stored and the caller must not change its memory
    /// either. Refused by a full disk or cap while the pool holds
    /// messages, it is tried again with more of the pool aged out first
    /// (ChatStore+StoragePressure.swift).
    @discardableResult
    public func commit(_ changes: StoreChanges) throws(StoreError) -> StoreCommitResult {
        if changes.isEmpty { return StoreCommitResult() }
        var reclaim = try reclaimBeforeCommit(changes)
        var retry = 0
        while true {
            do {
                let result = try attempt(changes, reclaim: reclaim)
                foldSearchIndex(added: result.added.count)
                return result
            } catch where error.isFull && retry < 2 && !changes.messages.isEmpty && (try? poolUsage().messages) ?? 0 > 0 {
                retry += 1
                reclaim = Self.reclaim(retry: retry, changes: changes)
                logger.debug("commit refused (\(error)); trying again with \(reclaim == .max ? "the whole" : "\(reclaim) bytes of the") pool aged out")
            }
        }
    }

    private func attempt(_ changes: StoreChanges, reclaim: Int) throws(StoreError) -> StoreCommitResult {
        try db().transaction { () throws(StoreError) -> StoreCommitResult in
            if !changes.unpooled.isEmpty { try unpool(changes.unpooled) }
            var result = try insertRows(changes, reclaim: reclaim)
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
