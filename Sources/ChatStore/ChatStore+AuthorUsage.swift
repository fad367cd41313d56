import ChatCore

/// Per-author totals for the per-peer storage quota (see `StorageUsage`)
/// and each author's standing (first seen, rows in the pool) behind the
/// node's trust classes. The node reads them while planning a step and
/// refuses what would go over; the store only keeps the totals true.
extension ChatStore {
    /// What `authors`' stored messages take; an author with none is absent.
    public func usage(of authors: [NodeNumber]) throws(StoreError) -> [NodeNumber: StorageUsage] {
        try records(of: authors).usage
    }

    /// `authors`' standing; an author with nothing stored is absent.
    public func standing(of authors: [NodeNumber]) throws(StoreError) -> [NodeNumber: AuthorStanding] {
        try records(of: authors).standing
    }

    private func records(of authors: [NodeNumber]) throws(StoreError) -> AuthorRecords {
        let database = try db()
        if authors.isEmpty { return AuthorRecords() }
        return try database.reading { () throws(StoreError) -> AuthorRecords in
            try records(of: Set(authors), in: database)
        }
    }

    struct AuthorRecords {
        var usage: [NodeNumber: StorageUsage] = [:]
        var standing: [NodeNumber: AuthorStanding] = [:]
    }

    func records(of authors: Set<NodeNumber>, in database: SQLiteDatabase) throws(StoreError) -> AuthorRecords {
        var found = AuthorRecords()
        try database.withStatement(SQL.authorUsage) { statement throws(StoreError) in
            for author in authors {
                defer { statement.reset() }
                try statement.bind(Int64(bitPattern: author.rawValue), at: 1)
                guard try statement.step() else { continue }
                found.usage[author] = StorageUsage(messages: Int(statement.int64(0)), bytes: Int(statement.int64(1)))
                found.standing[author] = AuthorStanding(firstSeen: statement.isNull(2) ? nil : statement.int64(2),
                                                        pooledMessages: Int(statement.int64(3)))
            }
        }
        return found
    }

    /// Adds newly inserted messages to their authors' totals (inside the
    /// insert's transaction); an author's first row sets its first seen.
    func addUsage(_ added: [NodeNumber: AuthorDelta], firstSeen: Int64) throws(StoreError) {
        let database = try db()
        for (author, usage) in added {
            try database.withStatement(SQL.addAuthorUsage) { statement throws(StoreError) in
                try statement.bind(Int64(bitPattern: author.rawValue), at: 1)
                try statement.bind(Int64(usage.messages), at: 2)
                try statement.bind(Int64(usage.bytes), at: 3)
                try statement.bind(firstSeen, at: 4)
                try statement.bind(Int64(usage.pooled), at: 5)
                try statement.run()
            }
        }
    }

    /// Takes deleted or unpooled rows out of their authors' totals; an
    /// author left with no rows loses its row (and its first seen).
    func subtractUsage(_ removed: [NodeNumber: AuthorDelta]) throws(StoreError) {
        let database = try db()
        for (author, usage) in removed {
            let sender = Int64(bitPattern: author.rawValue)
            try database.withStatement(SQL.subtractAuthorUsage) { statement throws(StoreError) in
                try statement.bind(sender, at: 1)
                try statement.bind(Int64(usage.messages), at: 2)
                try statement.bind(Int64(usage.bytes), at: 3)
                try statement.bind(Int64(usage.pooled), at: 4)
                try statement.run()
            }
            guard usage.messages > 0 else { continue }
            try database.withStatement(SQL.dropEmptyAuthorUsage) { statement throws(StoreError) in
                try statement.bind(sender, at: 1)
                try statement.run()
            }
        }
    }

    /// Recounts every author and the pool from the rows (after rows were
    /// deleted by an in-memory trim); first seen is kept.
    func recountUsage() throws(StoreError) {
        try db().execute(SQL.recountAuthorUsageKeepingFirstSeen)
    }
}

/// Rows added to or taken from an author's totals (or the pool's).
struct AuthorDelta {
    var messages = 0
    var bytes = 0
    /// Of them, rows in the pool.
    var pooled = 0

    mutating func add(_ bytes: Int, pooled inPool: Bool) {
        messages += 1
        self.bytes += bytes
        if inPool { pooled += 1 }
    }
}
