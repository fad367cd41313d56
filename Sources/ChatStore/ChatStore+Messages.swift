import ChatCore

/// Reads of stored messages by id.
extension ChatStore {
    /// Which of `ids` are stored (any room): one call for a whole batch.
    public func storedIDs(among ids: [MessageID]) throws(StoreError) -> Set<MessageID> {
        try lookUp(ids: ids, authors: []).stored
    }

    /// Whether a message with this id is stored (any room).
    public func contains(_ id: MessageID) throws(StoreError) -> Bool {
        try db().withStatement(SQL.containsMessage) { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            return try statement.step()
        }
    }

    /// The stored message with this id, if any.
    public func message(_ id: MessageID) throws(StoreError) -> Message? {
        try db().withStatement(SQL.messageByID) { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            guard try statement.step() else { return nil }
            return try Self.message(from: statement)
        }
    }
}
