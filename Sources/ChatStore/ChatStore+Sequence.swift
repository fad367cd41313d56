import ChatCore
import Foundation

/// The arrival sequence peers catch up by (see PROTOCOL.md 4.5), the
/// store's epoch, and the in-memory store's bounded window.
extension ChatStore {
    /// Keeps an in-memory store's rooms within `inMemoryWindow` messages.
    func trim(_ rooms: Dictionary<RoomID, RoomSummary>.Keys, adding messages: [Message], added: Set<MessageID>) throws(StoreError) {
        for message in messages where added.contains(message.id) { untrimmed[message.room, default: 0] += 1 }
        var trimmed = false
        for room in rooms where untrimmed[room, default: 0] > Self.inMemoryWindow + Self.inMemoryWindow / 10 {
            trimmed = true
            try db().withStatement(SQL.trimRoom) { statement throws(StoreError) in
                try statement.bind(room.description, at: 1)
                try statement.bind(Self.inMemoryWindow, at: 2)
                try statement.run()
            }
            untrimmed[room] = Self.inMemoryWindow
        }
        // Trimmed authors' shares shrink with their rows (a window of a few
        // rooms: cheap to recount, and rare).
        if trimmed { try recountUsage() }
    }

    /// The highest arrival sequence number given so far (0: none).
    public func lastSeq() throws(StoreError) -> Int64 {
        try db().withStatement(SQL.lastSeq) { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : 0
        }
    }

    /// Up to `limit` public messages stored after arrival number `seq`, in
    /// arrival order, each with its number: what a peer catching up gets.
    public func publicMessages(afterSeq seq: Int64, limit: Int) throws(StoreError) -> [(seq: Int64, message: Message)] {
        guard let limit = Self.clamped(limit) else { return [] }
        return try db().withStatement(SQL.publicAfterSeq) { statement throws(StoreError) in
            try statement.bind(seq, at: 1)
            try statement.bind(limit, at: 2)
            var rows: [(seq: Int64, message: Message)] = []
            while try statement.step() { rows.append((statement.int64(SQL.messageColumnCount), try Self.message(from: statement))) }
            return rows
        }
    }

    /// The store's epoch, made on first open.
    static func loadEpoch(_ database: SQLiteDatabase) throws(StoreError) -> String {
        let existing = try database.withStatement(SQL.metaValue) { statement throws(StoreError) in
            try statement.bind("store.epoch", at: 1)
            return try statement.step() ? statement.string(0) : nil
        }
        if let existing { return existing }
        let epoch = UUID().uuidString.lowercased()
        try database.withStatement(SQL.metaUpsert) { statement throws(StoreError) in
            try statement.bind("store.epoch", at: 1)
            try statement.bind(epoch, at: 2)
            try statement.run()
        }
        return epoch
    }
}
