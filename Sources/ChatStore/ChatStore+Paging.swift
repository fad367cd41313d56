import ChatCore

/// Keyset paging through the (room, sent_at, id) index. Every result is in
/// display order, oldest first; a cursor is exclusive (the page before a
/// cursor does not contain it).
extension ChatStore {
    /// Up to `limit` messages just before `cursor` (nil: the newest ones).
    public func page(_ room: RoomID, before cursor: HistoryCursor?, limit: Int = 30) throws(StoreError) -> [Message] {
        guard let limit = Self.clamped(limit) else { return [] }
        if let cursor {
            return try fetch(SQL.before, room: room, cursor: cursor, limit: limit).reversed()
        }
        return try fetch(SQL.newest, room: room, cursor: nil, limit: limit).reversed()
    }

    /// Up to `limit` messages just after `cursor` (nil: the oldest ones).
    public func page(_ room: RoomID, after cursor: HistoryCursor?, limit: Int = 30) throws(StoreError) -> [Message] {
        guard let limit = Self.clamped(limit) else { return [] }
        return try fetch(cursor == nil ? SQL.oldest : SQL.after, room: room, cursor: cursor, limit: limit)
    }

    /// `page(_:before:limit:)` with exact `hasMoreBefore` / `hasMoreAfter`,
    /// for a `HistoryWindow` scrolling up.
    public func historyPage(_ room: RoomID, before cursor: HistoryCursor?, limit: Int = 30) throws(StoreError) -> HistoryPage {
        try historyPage(room, messages: page(room, before: cursor, limit: limit), fetched: .older)
    }

    /// `page(_:after:limit:)` with exact `hasMoreBefore` / `hasMoreAfter`,
    /// for a `HistoryWindow` scrolling down.
    public func historyPage(_ room: RoomID, after cursor: HistoryCursor?, limit: Int = 30) throws(StoreError) -> HistoryPage {
        try historyPage(room, messages: page(room, after: cursor, limit: limit), fetched: .newer)
    }

    /// The page a room opens on. With unread messages it is centred on the
    /// read marker: up to half the page of read messages (the marker's
    /// message included) and the first unread ones after them, topped up
    /// from either side when one side runs short. With nothing unread it
    /// is the newest page. `readMarker` in the result says where the
    /// "new messages" line goes.
    public func pageAroundReadMarker(_ room: RoomID, limit: Int = 30) throws(StoreError) -> HistoryPage {
        guard let limit = Self.clamped(limit) else { return try historyPage(room, messages: [], fetched: .older) }
        guard let summary = try summary(of: room), summary.unreadCount > 0 else {
            return try historyPage(room, before: nil, limit: limit)
        }
        let marker = summary.readMarker
        let read = try marker.map { cursor throws(StoreError) in
            try fetch(SQL.atOrBefore, room: room, cursor: cursor, limit: limit)
        } ?? []
        let unread = try fetch(marker == nil ? SQL.oldest : SQL.after, room: room, cursor: marker, limit: limit)
        let unreadTaken = min(unread.count, limit - min(read.count, limit / 2))
        let readTaken = min(read.count, limit - unreadTaken)
        return try historyPage(room, messages: read.prefix(readTaken).reversed() + unread.prefix(unreadTaken), fetched: .newer)
    }

    /// The newest message's cursor: what a node asks its peers to continue
    /// from when it joins.
    public func newestCursor(_ room: RoomID) throws(StoreError) -> HistoryCursor? {
        try cursor(SQL.newestCursor, room: room, from: nil)
    }

    /// The oldest message's cursor.
    public func oldestCursor(_ room: RoomID) throws(StoreError) -> HistoryCursor? {
        try cursor(SQL.oldestCursor, room: room, from: nil)
    }

    /// What a peer asking to catch up gets: up to `limit` messages after
    /// `cursor`, oldest first. The same query as `page(_:after:limit:)`.
    public func messages(in room: RoomID, after cursor: HistoryCursor?, limit: Int) throws(StoreError) -> [Message] {
        try page(room, after: cursor, limit: limit)
    }

    // MARK: Internals

    /// nil for a limit below 1; otherwise at most `maxPageSize`.
    static func clamped(_ limit: Int) -> Int? {
        limit < 1 ? nil : min(limit, maxPageSize)
    }

    /// Runs one of the page queries: `?1` room, `?2 ?3` cursor, then limit.
    func fetch(_ sql: String, room: RoomID, cursor: HistoryCursor?, limit: Int) throws(StoreError) -> [Message] {
        try db().withStatement(sql) { statement throws(StoreError) in
            try statement.bind(room.description, at: 1)
            if let cursor {
                try statement.bind(cursor, at: 2)
                try statement.bind(limit, at: 4)
            } else {
                try statement.bind(limit, at: 2)
            }
            var messages: [Message] = []
            messages.reserveCapacity(limit)
            while try statement.step() { messages.append(try Self.message(from: statement)) }
            return messages
        }
    }

    /// Runs one of the cursor-only queries.
    func cursor(_ sql: String, room: RoomID, from cursor: HistoryCursor?) throws(StoreError) -> HistoryCursor? {
        try db().withStatement(sql) { statement throws(StoreError) in
            try statement.bind(room.description, at: 1)
            if let cursor { try statement.bind(cursor, at: 2) }
            return try statement.step() ? statement.cursor(0) : nil
        }
    }

    /// Which way a page was fetched, for reading an empty result.
    enum Direction { case older, newer }

    /// Wraps messages in a page, asking the index whether anything lies
    /// beyond either end (two seeks). An empty page means the request fell
    /// past the end it was heading for, so whatever the room has lies on
    /// the other side.
    func historyPage(_ room: RoomID, messages: [Message], fetched direction: Direction) throws(StoreError) -> HistoryPage {
        let marker = try summary(of: room)?.readMarker
        guard let first = messages.first?.cursor, let last = messages.last?.cursor else {
            let any = try newestCursor(room) != nil
            return HistoryPage(
                room: room, messages: [],
                hasMoreBefore: direction == .newer && any, hasMoreAfter: direction == .older && any, readMarker: marker)
        }
        return HistoryPage(
            room: room, messages: messages,
            hasMoreBefore: try cursor(SQL.cursorBefore, room: room, from: first) != nil,
            hasMoreAfter: try cursor(SQL.cursorAfter, room: room, from: last) != nil,
            readMarker: marker)
    }
}
