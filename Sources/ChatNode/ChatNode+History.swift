import ChatCore

/// Reading history from the store: pages around the read marker and in
/// both directions, the grouped room list, marking read.
extension ChatNode {
    /// Opens `room` for reading: the page around its read marker. The room
    /// becomes the active one.
    public func openHistory(_ room: RoomID, limit: Int = 30) async throws(NodeError) -> HistoryPage {
        do {
            let page = try await store.pageAroundReadMarker(room, limit: limit)
            return page
        } catch { throw .store(error) }
    }

    /// The page before (older) or after (newer) `cursor`.
    public func historyPage(_ room: RoomID, before cursor: HistoryCursor, limit: Int = 30) async throws(NodeError) -> HistoryPage {
        do { return try await store.historyPage(room, before: cursor, limit: limit) } catch { throw .store(error) }
    }

    public func historyPage(_ room: RoomID, after cursor: HistoryCursor, limit: Int = 30) async throws(NodeError) -> HistoryPage {
        do { return try await store.historyPage(room, after: cursor, limit: limit) } catch { throw .store(error) }
    }

    /// Moves the read marker of `room` to `cursor` (forward only); returns
    /// the unread count left, which the in-memory count then matches.
    @discardableResult
    public func markRead(_ room: RoomID, upTo cursor: HistoryCursor) async throws(NodeError) -> Int {
        let unread: Int
        do { unread = try await store.markRead(room, upTo: cursor) } catch { throw .store(error) }
        syncUnread(room, to: unread)
        return unread
    }

    /// The reader was shown every message of `room` from `start` through
    /// `cursor`: the marker moves to `cursor` unless unread messages the
    /// reader was not shown lie between it and `start` ("reading is what the
    /// eye saw"). Returns the unread count left.
    @discardableResult
    public func markRead(_ room: RoomID, shownFrom start: HistoryCursor, upTo cursor: HistoryCursor) async throws(NodeError) -> Int {
        let unread: Int
        do { unread = try await store.markRead(room, shownFrom: start, upTo: cursor) } catch { throw .store(error) }
        syncUnread(room, to: unread)
        return unread
    }

    /// The store's unread count, for `/unread`, `/read` and badges to agree.
    func syncUnread(_ room: RoomID, to unread: Int) {
        // Through changeRouter, so a commit in flight does not undo it.
        let events = changeRouter(.syncUnread(room, count: unread))
        if !events.isEmpty { emit(.unread(room, count: unread)) }
    }

    /// Every room in the store, most recently active first, with titles.
    public func roomList() async throws(NodeError) -> [RoomSummary] {
        do { return try await store.rooms() } catch { throw .store(error) }
    }

    /// Whether the store's file is sound (`PRAGMA integrity_check`).
    public func checkStore() async -> Bool {
        (try? await store.integrityCheck()) ?? false
    }
}
