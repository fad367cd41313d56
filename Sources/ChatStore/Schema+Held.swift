/// DMs held for a key change (`DeliveryState.held`): found at start without
/// a scan, as the outbox's `messages_pending` finds undelivered ones. The
/// partial index holds only those rows, so it costs nothing otherwise.
extension Schema {
    static let heldIndex = """
        CREATE INDEX messages_held ON messages (room, sent_at, id) WHERE delivery = 'held';
        """
}
