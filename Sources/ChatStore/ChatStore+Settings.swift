import ChatCore

/// Node settings: the meta table's keys and values.
extension ChatStore {
    /// A node setting (e.g. its node number), or nil if never set.
    public func value(forKey key: String) throws(StoreError) -> String? {
        try db().withStatement(SQL.metaValue) { statement throws(StoreError) in
            try statement.bind(key, at: 1)
            return try statement.step() ? statement.string(0) : nil
        }
    }

    /// Sets a node setting; nil removes it.
    public func setValue(_ value: String?, forKey key: String) throws(StoreError) {
        let database = try db()
        try database.withStatement(value == nil ? SQL.metaDelete : SQL.metaUpsert) { statement throws(StoreError) in
            try statement.bind(key, at: 1)
            if let value { try statement.bind(value, at: 2) }
            try statement.run()
        }
    }
}
