import ChatCore

/// Per-author totals for the per-peer storage quota (see `StorageUsage`).
/// The node reads them while planning a step and refuses what would go
/// over; the store only keeps the totals true.
extension ChatStore {
    /// What `authors`' stored messages take; an author with none is absent.
    public func usage(of authors: [NodeNumber]) throws(StoreError) -> [NodeNumber: StorageUsage] {
        let database = try db()
        if authors.isEmpty { return [:] }
        return try database.reading { () throws(StoreError) -> [NodeNumber: StorageUsage] in
            try usage(of: Set(authors), in: database)
        }
    }

    func usage(of authors: Set<NodeNumber>, in database: SQLiteDatabase) throws(StoreError) -> [NodeNumber: StorageUsage] {
        var found: [NodeNumber: StorageUsage] = [:]
        for author in authors {
            let usage = try database.withStatement(SQL.authorUsage) { statement throws(StoreError) -> StorageUsage? in
                try statement.bind(Int64(bitPattern: author.rawValue), at: 1)
                guard try statement.step() else { return nil }
                return StorageUsage(messages: Int(statement.int64(0)), bytes: Int(statement.int64(1)))
            }
            if let usage { found[author] = usage }
        }
        return found
    }

    /// Adds newly inserted messages to their authors' totals (inside the
    /// insert's transaction).
    func addUsage(_ added: [NodeNumber: StorageUsage]) throws(StoreError) {
        let database = try db()
        for (author, usage) in added {
            try database.withStatement(SQL.addAuthorUsage) { statement throws(StoreError) in
                try statement.bind(Int64(bitPattern: author.rawValue), at: 1)
                try statement.bind(Int64(usage.messages), at: 2)
                try statement.bind(Int64(usage.bytes), at: 3)
                try statement.run()
            }
        }
    }

    /// Recounts every author from the rows (after rows were deleted).
    func recountUsage() throws(StoreError) {
        try db().execute("DELETE FROM author_usage; \(SQL.recountAuthorUsage)")
    }
}
