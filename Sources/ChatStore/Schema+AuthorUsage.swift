/// Migration 5: per-author totals behind the per-peer storage quota, kept
/// by every insert (and recounted after an in-memory trim) so checking a
/// quota never scans the messages table. Filled from the rows already there.
extension Schema {
    static let authorUsage = """
        CREATE TABLE author_usage (
            sender INTEGER NOT NULL PRIMARY KEY,  -- node number
            messages INTEGER NOT NULL,
            bytes INTEGER NOT NULL                -- as StorageUsage.bytes(of:)
        ) WITHOUT ROWID;
        \(SQL.recountAuthorUsage);
        """
}
