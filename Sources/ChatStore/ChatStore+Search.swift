import ChatCore

/// `/search` over every room's history (Schema+Search.swift).
///
/// Text of three or more characters (Unicode scalars) goes through the
/// trigram index: a page costs about the same at any history size.
/// Letters of every cased script match in either case (Привет, ΟΔΟΣ,
/// École): the index folds case itself, and the check on the text folds
/// both sides the same way (`lanchat_contains`, SQLiteDatabase+Search).
///
/// Shorter text (Korean words are often two syllables: 안녕) has no
/// trigram to look up, and FTS5's own fallback for it reads every row. It
/// takes a bounded scan instead: newest first, `searchScanBudget` messages
/// a call at most, and the result says where it stopped, so the next call
/// goes on from there (`ChatNode.search` makes several). Honest (never a
/// silent partial answer) and bounded (a call never holds the store's
/// queue for long), at the price that a rare two-letter word deep in a
/// large history takes more than one page to reach.
extension ChatStore {
    /// Messages one scan page looks at, at most (short queries only).
    /// Sized so a stretch stays within the index's p99 target (about 20 ms
    /// for 20k messages on the README's machine); `ChatNode.search` runs
    /// several stretches per call.
    public static let searchScanBudget = 20_000
    /// Messages left out of the index before a fold writes them in, and
    /// most a fold's transaction takes (`Schema.searchIndex`).
    public static let searchFoldThreshold = 512
    public static let searchFoldBatch = 8_192

    /// Up to `limit` messages of any room whose text contains `query`,
    /// newest stored first, stored before arrival `before` (nil: from the
    /// newest). Quotes, asterisks and FTS5 keywords in the text are literal.
    public func search(_ query: SearchQuery, before: Int64? = nil, limit: Int = SearchQuery.defaultLimit) throws(StoreError) -> SearchResults {
        guard let limit = Self.clamped(limit) else { return SearchResults(query: query, hits: [], continueBefore: nil) }
        let top = min(before ?? Int64.max, try lastSeq() + 1)
        if query.usesIndex {
            // The newest, not folded into the index yet (a few hundred at
            // most): scanned, newest first; then the index below them.
            let indexed = try indexedUpTo()
            var hits: [SearchResults.Hit] = []
            if top > indexed + 1 {
                hits = try searchRows(SQL.searchScan) { statement throws(StoreError) in
                    try statement.bind(top, at: 1)
                    try statement.bind(indexed + 1, at: 2)
                    try statement.bind(query.folded, at: 3)
                    try statement.bind(limit + 1, at: 4)
                }
            }
            if hits.count <= limit {
                hits += try searchRows(SQL.searchIndexed) { statement throws(StoreError) in
                    try statement.bind(query.ftsTrigrams, at: 1)
                    try statement.bind(min(top, indexed + 1), at: 2)
                    try statement.bind(limit + 1 - hits.count, at: 3)
                    try statement.bind(query.folded, at: 4)
                }
            }
            let more = hits.count > limit
            if more { hits.removeLast(hits.count - limit) }
            return SearchResults(query: query, hits: hits, continueBefore: more ? hits.last?.seq : nil)
        }
        let floor = max(top - Int64(Self.searchScanBudget), 1)  // seq counts from 1
        var hits = try searchRows(SQL.searchScan) { statement throws(StoreError) in
            try statement.bind(top, at: 1)
            try statement.bind(floor, at: 2)
            try statement.bind(query.folded, at: 3)
            try statement.bind(limit + 1, at: 4)
        }
        let scanned = Int(max(0, top - floor))
        if hits.count > limit {
            hits.removeLast(hits.count - limit)
            return SearchResults(query: query, hits: hits, continueBefore: hits.last?.seq, scanned: scanned)
        }
        // Older messages left to scan, unless the window reached the first.
        let first = try db().withStatement(SQL.firstSeq) { statement throws(StoreError) -> Int64? in
            try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
        }
        return SearchResults(query: query, hits: hits, continueBefore: first.map { floor > $0 } == true ? floor : nil, scanned: scanned)
    }

    /// Up to which arrival number the index holds every message.
    func indexedUpTo() throws(StoreError) -> Int64 {
        if let searchIndexedUpTo { return searchIndexedUpTo }
        let upto = try db().withStatement(SQL.searchIndexedUpTo) { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : 0
        }
        searchIndexedUpTo = upto
        return upto
    }

    /// Folds the messages the index does not hold yet into it, a batch a
    /// transaction, once `searchFoldThreshold` wait (`all`: every one).
    /// Called after writes commit with how many they `added`; a fold that
    /// fails (a full disk) leaves the mark where it was, and the next write
    /// tries again. Searches are complete either way: they scan what is
    /// not folded.
    func foldSearchIndex(added: Int = 0, all: Bool = false) {
        searchUnfoldedHint = searchUnfoldedHint == .max ? .max : searchUnfoldedHint + added
        guard all || searchUnfoldedHint >= Self.searchFoldThreshold else { return }
        do {
            let database = try db()
            let last = try lastSeq()
            var indexed = try indexedUpTo()
            while last - indexed >= (all ? 1 : Int64(Self.searchFoldThreshold)) {
                let upTo = min(last, indexed + Int64(foldBatch))
                let from = indexed
                try database.transaction { () throws(StoreError) in
                    try database.withStatement(SQL.foldIntoSearchIndex) { statement throws(StoreError) in
                        try statement.bind(from, at: 1)
                        try statement.bind(upTo, at: 2)
                        try statement.run()
                    }
                    try database.withStatement(SQL.setSearchIndexedUpTo) { statement throws(StoreError) in
                        try statement.bind(upTo, at: 1)
                        try statement.run()
                    }
                }
                // Memory follows the disk: the mark moves once committed.
                indexed = upTo
                searchIndexedUpTo = upTo
            }
            searchUnfoldedHint = Int(last - indexed)
        } catch {
            searchIndexedUpTo = nil  // read again from the file next time
            searchUnfoldedHint = .max  // and the next write tries again
            logger.notice("search index: could not fold new messages in (they are still found, by a scan): \(error)")
        }
    }

    /// Runs a search statement whose rows are `messageColumns` then `seq`.
    private func searchRows(_ sql: String, bind: (Statement) throws(StoreError) -> Void) throws(StoreError) -> [SearchResults.Hit] {
        try db().withStatement(sql) { statement throws(StoreError) in
            try bind(statement)
            var hits: [SearchResults.Hit] = []
            while try statement.step() {
                hits.append(SearchResults.Hit(seq: statement.int64(SQL.messageColumnCount), message: try Self.message(from: statement)))
            }
            return hits
        }
    }
}
