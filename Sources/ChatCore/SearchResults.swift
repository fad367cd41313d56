/// One page of `/search` results, newest stored first.
public struct SearchResults: Hashable, Sendable {
    /// A message that matched, with its arrival number (the search cursor).
    public struct Hit: Hashable, Sendable {
        public var seq: Int64
        public var message: Message

        public init(seq: Int64, message: Message) {
            self.seq = seq
            self.message = message
        }
    }

    public var query: SearchQuery
    /// Newest stored first (arrival order: a message caught up late from
    /// a peer counts as stored when it arrived).
    public var hits: [Hit]
    /// Pass as `before` for the next page (`/more`); nil when the whole
    /// history has been searched.
    public var continueBefore: Int64?
    /// Messages the scan path looked at for this page (0 for the index):
    /// short queries look at `ChatStore.searchScanBudget` messages a page.
    public var scanned: Int

    public init(query: SearchQuery, hits: [Hit], continueBefore: Int64?, scanned: Int = 0) {
        self.query = query
        self.hits = hits
        self.continueBefore = continueBefore
        self.scanned = scanned
    }

    public var messages: [Message] { hits.map(\.message) }
}
