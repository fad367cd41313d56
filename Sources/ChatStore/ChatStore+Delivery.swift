import ChatCore

/// Delivery state of outgoing DMs: the persistent half of the outbox, so a
/// restarted sender resumes where it stopped.
extension ChatStore {
    /// Records where an outgoing message stands. Forward only: a message
    /// not yet tracked may take any state; queued < sent < delivered, and
    /// delivered and failed are final (a late `sent` after `delivered` is
    /// ignored). nil stops tracking.
    public func setDelivery(_ state: DeliveryState?, for id: MessageID) throws(StoreError) {
        guard let state else {
            return try db().withStatement("UPDATE messages SET delivery = NULL WHERE id = ?1") { statement throws(StoreError) in
                try statement.bind(id, at: 1)
                try statement.run()
            }
        }
        try db().withStatement(SQL.moveDelivery) { statement throws(StoreError) in
            try statement.bind(state.rawValue, at: 1)
            try statement.bind(id, at: 2)
            try statement.bind(state.rank, at: 3)
            try statement.run()
        }
    }

    public func delivery(of id: MessageID) throws(StoreError) -> DeliveryState? {
        try db().withStatement("SELECT delivery FROM messages WHERE id = ?1") { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            guard try statement.step() else { return nil }
            return statement.string(0).flatMap(DeliveryState.init(rawValue:))
        }
    }

    /// Messages still waiting for an acknowledgement (queued or sent),
    /// oldest first. Uses the partial index `messages_pending`.
    public func undelivered() throws(StoreError) -> [Message] {
        let sql = """
            SELECT \(SQL.messageColumns) FROM messages INDEXED BY messages_pending
            WHERE delivery IN ('queued', 'sent') ORDER BY sent_at, id
            """
        return try db().withStatement(sql) { statement throws(StoreError) in
            var messages: [Message] = []
            while try statement.step() { messages.append(try Self.message(from: statement)) }
            return messages
        }
    }

    /// DMs held for a key change (`DeliveryState.held`), oldest first. Uses
    /// the partial index `messages_held`.
    public func held() throws(StoreError) -> [Message] {
        let sql = """
            SELECT \(SQL.messageColumns) FROM messages INDEXED BY messages_held
            WHERE delivery = 'held' ORDER BY sent_at, id
            """
        return try db().withStatement(sql) { statement throws(StoreError) in
            var messages: [Message] = []
            while try statement.step() { messages.append(try Self.message(from: statement)) }
            return messages
        }
    }
}
