import ChatCore

/// The message row mapping, here only: `bind` writes the columns of
/// `SQL.insertMessage`, `message(from:)` reads `SQL.messageColumns`.
/// Adding a column touches these two, SQL.swift and a migration.
extension ChatStore {
    /// Binds `message` to `SQL.insertMessage`'s parameters ?1...?8 and
    /// ?10...?12 (?9, the arrival sequence, and ?13, pooled, are the caller's).
    static func bind(_ message: Message, to statement: Statement) throws(StoreError) {
        try statement.bind(message.id, at: 1)
        try statement.bind(message.room.description, at: 2)
        try statement.bind(message.timestamp, at: 3)
        try statement.bind(Int64(bitPattern: message.senderNumber.rawValue), at: 4)
        try statement.bind(message.senderNickname, at: 5)
        try statement.bind(message.senderStage, at: 6)
        try statement.bind(message.content, at: 7)
        try statement.bind(message.automatic ? 1 : 0, at: 8)
        try statement.bind(message.signature, at: 10)
        try statement.bind(message.authorKey, at: 11)
        try statement.bind(message.signedTimestamp, at: 12)
    }

    /// Decodes a row of `SQL.messageColumns`.
    static func message(from statement: Statement) throws(StoreError) -> Message {
        guard let id = statement.messageID(0) else {
            throw .malformedRow(table: "messages", reason: "id is not 16 bytes")
        }
        guard let roomName = statement.string(1), let room = RoomID(roomName) else {
            throw .malformedRow(table: "messages", reason: "room of \(id) is not public or dm:<n>")
        }
        guard let sender = NodeNumber(rawValue: UInt64(bitPattern: statement.int64(3))) else {
            throw .malformedRow(table: "messages", reason: "sender of \(id) is not a node number")
        }
        var message = Message(
            id: id, room: room, senderNumber: sender, senderNickname: statement.string(4) ?? "",
            senderStage: statement.string(5), content: statement.string(6) ?? "",
            timestamp: statement.int64(2), automatic: statement.int64(7) != 0)
        message.signature = statement.string(8)
        message.authorKey = statement.string(9)
        message.signedTimestamp = statement.isNull(10) ? nil : statement.int64(10)
        return message
    }
}
