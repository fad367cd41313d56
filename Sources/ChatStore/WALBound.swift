import ChatCore

/// How a history cap (`--max-history`) bounds the write-ahead log and its
/// shared-memory index as well as the database file.
///
/// The database file is held to the cap by `max_page_count`. The WAL
/// holds each commit's pages until a checkpoint copies them into the
/// file; SQLite starts it over from the top once a checkpoint is complete,
/// and `journal_size_limit` then cuts the file back. So under a cap: a
/// checkpoint after every commit that leaves `checkpointPages` or more in
/// the WAL (inline, on the store's thread: no second writer lags behind),
/// no preallocated WAL, no cache spill (a spilled page written again mid-
/// commit would take two frames), and search folds of `foldBatch`
/// messages (a fold writes the index's new segment in one commit). The
/// node keeps its steps small under a cap as well (`NodeOptions`), so a
/// commit writes well under the margin: the WAL stays within about
/// `checkpointPages` plus one commit, the shared memory within 32 KiB per
/// 4,096 WAL frames, together under `margin(cap:)`.
public enum WALBound {
    /// What the WAL and shared-memory files may add to the cap: 1 MiB or
    /// a quarter of the cap, whichever is larger (docs/OPERATIONS.md).
    public static func margin(cap: Int) -> Int {
        max(1_048_576, cap / 4)
    }

    /// WAL pages after which a commit checkpoints: a quarter of the margin.
    static func checkpointPages(cap: Int, pageSize: Int) -> Int32 {
        Int32(clamping: max(8, margin(cap: cap) / 4 / pageSize))
    }

    /// Messages folded into the search index per transaction.
    static func foldBatch(cap: Int) -> Int { 256 }

    /// Most frames and commands a node step takes under a cap: a commit of
    /// this many messages, plus the pool rows it ages out, writes a few
    /// hundred KiB (a row and its index entries a few hundred bytes).
    public static func commitBatch(cap: Int) -> Int {
        max(16, min(1024, margin(cap: cap) / 4096))
    }

    static func configure(_ database: SQLiteDatabase, cap: Int) throws(StoreError) {
        let margin = margin(cap: cap)
        try database.execute("PRAGMA journal_size_limit = \(margin / 2)")
        // The whole capped file fits in the cache, so nothing spills.
        try database.execute("PRAGMA cache_size = -\(max(2048, (cap + margin) / 1024))")
        try database.execute("PRAGMA cache_spill = OFF")
    }
}
