import ChatCore

/// When the files are short of room: the history cap (`maxBytes`) nearly
/// reached, or the disk down to its reserve (`DiskReserve`). Then a commit
/// ages out of the pool about twice what it adds (counted bytes; SQLite
/// reuses the freed pages), so unknown traffic stops growing the files;
/// and a commit the cap or the disk still refuses is tried again with
/// more of the pool, then all of it, aged out before its rows go in; a
/// commit of the user's own messages then with more of the other tiers
/// (`AgeingOrder`), a peer's as fair shares allow (ChatStore+FairShare.swift),
/// before it fails.
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
    func freePageBytes() throws(StoreError) -> Int {
        try pragmaInt(SQL.freelistCount) * pageSize
    }

    private func pragmaInt(_ sql: String) throws(StoreError) -> Int {
        try db().withStatement(sql) { statement throws(StoreError) in
            try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// After the cap or the disk refused a commit: ages out, before its
    /// rows go in (they need the pages), `room.pool` counted bytes of the
    /// pool and, once the pool is empty, `room.others` of the tiers a
    /// commit of the user's own messages may age out (`AgeingOrder`).
    /// Never the row numbered `newest` (the highest arrival number): the
    /// numbers never go back, even if every row of the commit is a duplicate.
    /// A commit of peers' messages (an order ranked below `.own`) ages
    /// out `room.others` as fair shares allow (ChatStore+FairShare.swift).
    func makeRoom(_ room: RoomToMake, for changes: StoreChanges, newest: Int64, into result: inout StoreCommitResult) throws(StoreError) {
        if let order = changes.ageingOrder, order.rank < .own {
            let incoming = changes.messages.reduce(0) { $0 + StorageUsage.bytes(of: $1) }
            try makeFairRoom(target: room.others, for: order, incoming: incoming, before: newest, into: &result)
            return
        }
        // The pool's rows and the tiers' in one deletion: rows scattered
        // over the pages may free no whole page, and the search index needs
        // one for their removal; aged out alone, a few pool rows would fail
        // every retry before the tiers' rows could free any.
        let pool = try poolCandidates(budget: nil, reclaim: room.pool, before: newest)
        var tiers = TierCandidates()
        if pool.bytes < room.pool, room.others > 0, let order = changes.ageingOrder {
            tiers = try tierCandidates(for: order, target: room.others, before: newest)
        }
        try deleteAged(seqs: pool.seqs + tiers.seqs, into: &result)
        if let order = changes.ageingOrder, !tiers.seqs.isEmpty { logAgedOut(tiers, for: order, pool: pool.seqs.count) }
    }

    /// What retry `retry` after a full disk or cap ages out first, or nil
    /// when there is no more to try: the pool about 256 KiB, then all of
    /// it; with an ageing order (the user's own messages, or a peer's as
    /// fair shares allow) the other tiers too, a little (a
    /// 64th of the cap) then four times as much each retry, then all that
    /// may go. A little first: under a cap full of known peers' history,
    /// each own send that finds no free page should cost the least of it,
    /// and the pages freed serve the next sends too.
    func roomToMake(retry: Int, changes: StoreChanges) -> RoomToMake? {
        let incoming = changes.messages.reduce(0) { $0 + StorageUsage.bytes(of: $1) }
        let pool = retry == 1 ? max(8 * incoming, 256 * 1024) : .max
        guard changes.ageingOrder != nil else { return retry <= 2 ? RoomToMake(pool: pool, others: 0) : nil }
        // A peer's step may be a batch of hundreds: twice its bytes frees
        // about the pages it needs, where eight times would cost others
        // half a small cap at once.
        let factor = changes.ageingOrder.map { $0.rank == .own ? 8 : 2 } ?? 8
        let base = max(factor * incoming, min(256 * 1024, maxPages.map { $0 * pageSize / 64 } ?? .max))
        switch retry {
        case 1: return RoomToMake(pool: pool, others: base)
        case 2: return RoomToMake(pool: pool, others: 4 * base)
        case 3: return RoomToMake(pool: pool, others: 16 * base)
        case 4: return RoomToMake(pool: pool, others: .max)
        default: return nil
        }
    }
}

/// Counted bytes a commit ages out before its rows go in (`makeRoom`).
struct RoomToMake: Hashable {
    var pool: Int
    var others: Int
}
