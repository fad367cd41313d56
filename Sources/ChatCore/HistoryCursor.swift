import Foundation

/// A position in a room's history: a message's timestamp and id.
///
/// Ordered the way messages display (timestamp, then id), so a cursor is
/// stable even when many messages share one millisecond. Pages are fetched
/// strictly before or after a cursor, never by offset.
public struct HistoryCursor: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970, the message's `timestamp`.
    public var timestamp: Int64
    public var id: MessageID

    public init(timestamp: Int64, id: MessageID) {
        self.timestamp = timestamp
        self.id = id
    }

    /// The cursor of `message`.
    public init(_ message: Message) {
        self.init(timestamp: message.timestamp, id: message.id)
    }

    public static func < (lhs: HistoryCursor, rhs: HistoryCursor) -> Bool {
        lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.id < rhs.id
    }

    /// A cursor that every message at `millis` or later sorts strictly
    /// after, and every earlier message sorts at or before: "after this"
    /// means "from `millis` on". Used to start a page at a date.
    public static func justBefore(millis: Int64) -> HistoryCursor {
        HistoryCursor(timestamp: millis &- 1, id: MessageID(uuid: UUID(uuid: allOnes)))
    }

    /// A cursor that every message before `millis` sorts strictly before,
    /// and every message at `millis` or later at or after: "before this"
    /// means "earlier than `millis`". Used to end a page at a date.
    public static func start(ofMillis millis: Int64) -> HistoryCursor {
        HistoryCursor(timestamp: millis, id: MessageID(uuid: UUID(uuid: allZeros)))
    }

    public var description: String { "\(timestamp)/\(id)" }

    private static let allOnes: uuid_t = (
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
    private static let allZeros: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

extension Message {
    /// Where this message sits in its room's history.
    public var cursor: HistoryCursor { HistoryCursor(self) }
}
