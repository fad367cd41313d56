import ChatCore

/// The node's per-step read (`StoreLookup`): duplicates and quota usage in
/// one read transaction, so a step costs one hop to the store's thread
/// before it is planned, not two.
extension ChatStore {
    public func lookUp(ids: [MessageID], authors: [NodeNumber]) throws(StoreError) -> StoreLookup {
        let database = try db()
        if ids.isEmpty && authors.isEmpty { return StoreLookup() }
        // One read transaction: per-statement implicit ones took half the
        // lookup's time in lock calls.
        return try database.reading { () throws(StoreError) -> StoreLookup in
            var found = StoreLookup()
            if !ids.isEmpty {
                found.stored.reserveCapacity(ids.count / 8)
                try database.withStatement(SQL.containsMessage) { statement throws(StoreError) in
                    for id in ids {
                        defer { statement.reset() }
                        try statement.bind(id, at: 1)
                        if try statement.step() { found.stored.insert(id) }
                    }
                }
            }
            if !authors.isEmpty {
                let records = try records(of: Set(authors), in: database)
                found.usage = records.usage
                found.standing = records.standing
            }
            return found
        }
    }
}
