import ChatCore

/// Opening a room on a chosen message (a `/search` result): the page
/// around it, from which the reader pages both ways as from the marker.
extension ChatStore {
    /// Up to `limit` messages of `room` around `cursor`: the message at the
    /// cursor and up to half the page before it, then the ones after it,
    /// topped up from either side when one side runs short. The read
    /// marker is reported, never moved.
    public func page(_ room: RoomID, around cursor: HistoryCursor, limit: Int = 30) throws(StoreError) -> HistoryPage {
        guard let limit = Self.clamped(limit) else { return try historyPage(room, messages: [], fetched: .older) }
        let before = try fetch(SQL.atOrBefore, room: room, cursor: cursor, limit: limit)
        let after = try fetch(SQL.after, room: room, cursor: cursor, limit: limit)
        let afterTaken = min(after.count, limit - min(before.count, limit / 2 + 1))
        let beforeTaken = min(before.count, limit - afterTaken)
        return try historyPage(room, messages: before.prefix(beforeTaken).reversed() + after.prefix(afterTaken), fetched: .newer)
    }
}
