import ChatCore

/// One transaction per node step (see `StoreChanges`).
extension ChatStore {
    /// Writes `changes` in one transaction (one commit, so one fsync with
    /// `.full` durability): messages, then delivery states, conversations
    /// and read markers. All or nothing: on error nothing is stored and the
    /// caller must not change its memory either.
    @discardableResult
    public func commit(_ changes: StoreChanges) throws(StoreError) -> StoreCommitResult {
        if changes.isEmpty { return StoreCommitResult() }
        let database = try db()
        let result = try database.transaction { () throws(StoreError) -> StoreCommitResult in
            var result = StoreCommitResult()
            result.added = try insertNew(changes.messages)
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
        foldSearchIndex(added: result.added.count)
        return result
    }
}
