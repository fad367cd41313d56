/// The `/search` statements (see `Schema.searchIndex`, `ChatStore+Search`).
extension SQL {
    /// The newest ?3 messages whose text contains ?4 (case folded both
    /// sides, `lanchat_contains`), stored before arrival ?2, among the rows holding every
    /// trigram of it (?1, `SearchQuery.ftsTrigrams`): FTS5 walks its
    /// doclists newest rowid first, `messages_seq` maps each rowid to its
    /// row, and the walk stops at the limit.
    static let searchIndexed = """
        SELECT \(qualifiedMessageColumns), m.seq FROM messages_search AS s JOIN messages AS m ON m.seq = s.rowid
        WHERE s.messages_search MATCH ?1 AND s.rowid < ?2 AND lanchat_contains(m.content, ?4)
        ORDER BY s.rowid DESC LIMIT ?3
        """
    /// `messageColumns` of the table aliased `m`.
    static let qualifiedMessageColumns = messageColumns.split(separator: ", ").map { "m." + $0 }.joined(separator: ", ")
    /// Text too short for the trigram index: the arrivals in [?2, ?1),
    /// newest first, whose text contains ?3 (case folded both sides),
    /// at most ?4. The window bounds the work a page does.
    static let searchScan = """
        SELECT \(messageColumns), seq FROM messages
        WHERE seq < ?1 AND seq >= ?2 AND lanchat_contains(content, ?3)
        ORDER BY seq DESC LIMIT ?4
        """
    static let firstSeq = "SELECT min(seq) FROM messages"
    /// Up to where the index holds every message.
    static let searchIndexedUpTo = "SELECT upto FROM search_indexed"
    /// Folds the messages with arrival numbers in (?1, ?2] into the index.
    static let foldIntoSearchIndex = "INSERT INTO messages_search (rowid, content) SELECT seq, content FROM messages WHERE seq > ?1 AND seq <= ?2"
    static let setSearchIndexedUpTo = "UPDATE search_indexed SET upto = ?1"
}
