import ChatCore

/// When the files are short of room: the history cap (`maxBytes`) nearly
/// reached, or the disk down to its reserve (`DiskReserve`). Then a commit
/// ages out of the pool about twice what it adds (counted bytes; SQLite
/// reuses the freed pages), so unknown traffic stops growing the files;
/// and a commit the cap or the disk still refuses is tried again with
/// more of the pool, then all of it, before it fails.
extension ChatStore {
    /// Counted bytes the pool should give up before `changes` is written.
    func reclaimBeforeCommit(_ changes: StoreChanges) throws(StoreError) -> Int {
        guard maxPages != nil || reserveBytes != nil, !changes.messages.isEmpty else { return 0 }
        let incoming = changes.messages.reduce(0) { $0 + StorageUsage.bytes(of: $1) }
        // A row takes about three times its counted bytes in pages (the
        // indexes, the search index, half-full pages).
        let needed = 3 * incoming
        let free = try freePageBytes()
        if free >= needed { return 0 }
        if let maxPages, (maxPages - (try pragmaInt(SQL.pageCount))) * pageSize + free < needed + maxPages * pageSize / 16 {
            return 2 * incoming
        }
        if let reserveBytes, let path, let space = FileSystemSpace.of(path), space.available - needed < reserveBytes {
            return 2 * incoming
        }
        return 0
    }

    /// Whether the disk is below its reserve now (the node says so once).
    public func belowDiskReserve() -> Bool {
        guard let reserveBytes, let path, let space = FileSystemSpace.of(path) else { return false }
        return space.available < reserveBytes
    }

    /// Bytes of the file's free pages (reused before the file grows).
    private func freePageBytes() throws(StoreError) -> Int {
        try pragmaInt(SQL.freelistCount) * pageSize
    }

    private func pragmaInt(_ sql: String) throws(StoreError) -> Int {
        try db().withStatement(sql) { statement throws(StoreError) in
            try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// What a retry after a full disk or cap ages out: the first a lot
    /// more than the estimate, the second the whole pool.
    static func reclaim(retry: Int, changes: StoreChanges) -> Int {
        guard retry < 2 else { return .max }
        let incoming = changes.messages.reduce(0) { $0 + StorageUsage.bytes(of: $1) }
        return max(8 * incoming, 256 * 1024)
    }
}
