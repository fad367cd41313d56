import ChatCore

/// `/search` over the whole history, and opening a room on a result.
extension ChatNode {
    /// Messages of every room (public and DMs) whose text contains `text`,
    /// newest stored first, `limit` a page; pass the result's
    /// `continueBefore` as `before` for the next page. The text is literal
    /// (see `SearchQuery`); empty or over-long text is refused as
    /// `.chat(.invalidSearch)`.
    ///
    /// Short text (1-2 characters) is scanned a stretch at a time by the
    /// store; this goes on stretch after stretch, up to
    /// `maxScannedPerSearch` messages, until the page is full, so a rare
    /// short word is found in one call. The store's queue is free between
    /// stretches: commits go on while a long search runs.
    public func search(_ text: String, before: Int64? = nil, limit: Int = SearchQuery.defaultLimit) async throws(NodeError) -> SearchResults {
        let query: SearchQuery
        do { query = try SearchQuery(text) } catch { throw .chat(error) }
        do {
            var results = try await store.search(query, before: before, limit: limit)
            var scanned = results.scanned
            while results.hits.count < limit, scanned > 0, scanned < Self.maxScannedPerSearch, let next = results.continueBefore {
                let more = try await store.search(query, before: next, limit: limit - results.hits.count)
                results.hits += more.hits
                results.continueBefore = more.continueBefore
                scanned += more.scanned
                if more.scanned == 0 { break }
            }
            results.scanned = scanned
            return results
        } catch { throw .store(error) }
    }

    /// Messages one `search` call scans at most for short text (in the
    /// store's stretches of `ChatStore.searchScanBudget`).
    public static let maxScannedPerSearch = 400_000

    /// The page of `room` around `cursor` (a search result), to page from
    /// both ways; the read marker stays where it is.
    public func openHistory(_ room: RoomID, around cursor: HistoryCursor, limit: Int = 30) async throws(NodeError) -> HistoryPage {
        do { return try await store.page(room, around: cursor, limit: limit) } catch { throw .store(error) }
    }
}
