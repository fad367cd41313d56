import ChatCore

extension ChatStore {
    /// Every room with history or a conversation, most recently active
    /// first (rooms with no messages last). Reads the rooms table only.
    public func rooms() throws(StoreError) -> [RoomSummary] {
        try db().withStatement(SQL.allRooms) { statement throws(StoreError) in
            var rooms: [RoomSummary] = []
            while try statement.step() { rooms.append(try Self.summary(from: statement)) }
            return rooms
        }
    }

    /// One room's row, or nil if the room has neither messages nor a
    /// conversation.
    public func summary(of room: RoomID) throws(StoreError) -> RoomSummary? {
        try db().withStatement(SQL.room) { statement throws(StoreError) in
            try statement.bind(room.description, at: 1)
            guard try statement.step() else { return nil }
            return try Self.summary(from: statement)
        }
    }

    /// Moves the room's read marker forward to `cursor` (never back, and
    /// never past the room's newest message) and updates unread: messages
    /// from others after the marker. Returns the new unread count.
    @discardableResult
    public func markRead(_ room: RoomID, upTo cursor: HistoryCursor) throws(StoreError) -> Int {
        let database = try db()
        return try database.transaction { () throws(StoreError) -> Int in
            guard var summary = try summary(of: room), let newest = summary.lastMessage else { return 0 }
            let target = min(cursor, newest)
            if let marker = summary.readMarker, target <= marker { return summary.unreadCount }
            let previous = summary.readMarker
            summary.readMarker = target
            if target == newest {
                // Nothing lies after the newest message: exact, and it mends
                // a count gone wrong (history kept under another identity).
                summary.unreadCount = 0
            } else {
                summary.unreadCount = try unread(in: room, movingFrom: previous, to: target, counted: summary.unreadCount)
            }
            try save(summary)
            return summary.unreadCount
        }
    }

    /// The unread count once the marker moves from `previous` to `target`.
    /// A file store's count is exact (every insert counts what lands after
    /// the marker), so it drops by the messages from others the reader moved
    /// past: the distance moved, where recounting everything after the new
    /// marker cost the whole unread tail on every page of a backlog (10 ms at
    /// 160k unread, 58 ms at a million). An in-memory store trims its rooms
    /// without recounting, so it counts what is left (at most its window).
    private func unread(in room: RoomID, movingFrom previous: HistoryCursor?, to target: HistoryCursor,
                        counted: Int) throws(StoreError) -> Int {
        let database = try db()
        let me = Int64(bitPattern: localNumber.rawValue)
        if path != nil {
            let passed = try database.withStatement(SQL.unreadThrough) { statement throws(StoreError) in
                try statement.bind(room.description, at: 1)
                try statement.bind(previous ?? .start(ofMillis: .min), at: 2)
                try statement.bind(me, at: 4)
                try statement.bind(target, at: 5)
                return try statement.step() ? Int(statement.int64(0)) : 0
            }
            if passed <= counted { return counted - passed }
            logger.warning("unread count of \(room) was \(counted), but \(passed) were read: recounting")
        }
        // Counts only the index range after the marker: O(unread), not O(room).
        return try database.withStatement(SQL.unreadAfter) { statement throws(StoreError) in
            try statement.bind(room.description, at: 1)
            try statement.bind(target, at: 2)
            try statement.bind(me, at: 4)
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// The reader was shown every message from `start` through `cursor` (a
    /// page, or one live message): the marker moves to `cursor` only if no
    /// message from others lies unread between the marker and `start`, so a
    /// gap the reader never saw stays unread. Returns the unread count.
    @discardableResult
    public func markRead(_ room: RoomID, shownFrom start: HistoryCursor, upTo cursor: HistoryCursor) throws(StoreError) -> Int {
        let database = try db()
        return try database.transaction { () throws(StoreError) -> Int in
            guard let summary = try summary(of: room) else { return 0 }
            if summary.unreadCount > 0 {
                let gap = try database.withStatement(SQL.anyUnreadBetween) { statement throws(StoreError) in
                    try statement.bind(room.description, at: 1)
                    try statement.bind(summary.readMarker ?? .start(ofMillis: .min), at: 2)
                    try statement.bind(Int64(bitPattern: localNumber.rawValue), at: 4)
                    try statement.bind(start, at: 5)
                    return try statement.step() && statement.int64(0) != 0
                }
                if gap { return summary.unreadCount }
            }
            return try markRead(room, upTo: cursor)
        }
    }

    /// Marks everything in the room read.
    @discardableResult
    public func markAllRead(_ room: RoomID) throws(StoreError) -> Int {
        guard let newest = try newestCursor(room) else { return 0 }
        return try markRead(room, upTo: newest)
    }

    /// Records a DM conversation's peer nickname and request state.
    public func setConversation(peer: NodeNumber, nickname: String, state: DMState) throws(StoreError) {
        let database = try db()
        try database.transaction { () throws(StoreError) in
            var summary = try summary(of: .direct(peer)) ?? RoomSummary(room: .direct(peer))
            summary.peerNickname = nickname
            summary.dmState = state
            try save(summary)
        }
    }

    /// Every DM conversation, by peer number: its peer, nickname (empty if
    /// never seen) and request state (`.none` if never set).
    public func conversations() throws(StoreError) -> [(peer: NodeNumber, nickname: String, state: DMState)] {
        let rooms = try db().withStatement(SQL.directRooms) { statement throws(StoreError) in
            var rooms: [RoomSummary] = []
            while try statement.step() { rooms.append(try Self.summary(from: statement)) }
            return rooms
        }
        return rooms
            .compactMap { summary in summary.room.peer.map { (peer: $0, nickname: summary.peerNickname ?? "", state: summary.dmState ?? .none) } }
            .sorted { $0.peer < $1.peer }
    }

    /// Writes a room's whole row, its preview cut to `previewCharacters`.
    func save(_ summary: RoomSummary) throws(StoreError) {
        try db().withStatement(SQL.upsertRoom) { statement throws(StoreError) in
            try statement.bind(summary.room.description, at: 1)
            try statement.bind(summary.lastMessage?.timestamp, at: 2)
            try statement.bind(summary.lastMessage?.id, at: 3)
            try statement.bind(summary.lastSenderNickname, at: 4)
            try statement.bind(summary.lastPreview.map { String($0.prefix(Self.previewCharacters)) }, at: 5)
            try statement.bind(summary.readMarker?.timestamp, at: 6)
            try statement.bind(summary.readMarker?.id, at: 7)
            try statement.bind(summary.unreadCount, at: 8)
            try statement.bind(summary.messageCount, at: 9)
            try statement.bind(summary.peerNickname, at: 10)
            try statement.bind(summary.dmState?.rawValue, at: 11)
            try statement.run()
        }
    }

    /// Decodes a row of `SQL.roomColumns`.
    static func summary(from statement: Statement) throws(StoreError) -> RoomSummary {
        guard let name = statement.string(0), let room = RoomID(name) else {
            throw .malformedRow(table: "rooms", reason: "room is not public or dm:<n>")
        }
        return RoomSummary(
            room: room, lastMessage: statement.cursor(1), lastSenderNickname: statement.string(3),
            lastPreview: statement.string(4), readMarker: statement.cursor(5),
            unreadCount: Int(statement.int64(7)), messageCount: Int(statement.int64(8)),
            peerNickname: statement.string(9), dmState: statement.string(10).flatMap(DMState.init(rawValue:)))
    }
}
