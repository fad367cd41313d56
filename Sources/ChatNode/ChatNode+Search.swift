import ChatCore
import ChatStore

/// `/search` over the whole history, and opening a room on a result.
extension ChatNode {
    /// Messages of every room (public and DMs) whose text contains `text`,
    /// newest stored first, `limit` a page; pass the result's
    /// `continueBefore` as `before` for the next page. The text is literal
    /// (see `SearchQuery`); empty or over-long text is refused as
    /// `.chat(.invalidSearch)`.
    public func search(_ text: String, before: Int64? = nil, limit: Int = SearchQuery.defaultLimit) async throws(NodeError) -> SearchResults {
        let query: SearchQuery
        do { query = try SearchQuery(text) } catch { throw .chat(error) }
        do { return try await store.search(query, before: before, limit: limit) } catch { throw .store(error) }
    }

    /// The page of `room` around `cursor` (a search result), to page from
    /// both ways; the read marker stays where it is.
    public func openHistory(_ room: RoomID, around cursor: HistoryCursor, limit: Int = 30) async throws(NodeError) -> HistoryPage {
        do { return try await store.page(room, around: cursor, limit: limit) } catch { throw .store(error) }
    }
}
