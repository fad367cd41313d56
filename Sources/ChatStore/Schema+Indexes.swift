/// Migration 7: the room index carries each message's sender, so counting
/// unread (messages from others after the read marker, done whenever the
/// marker moves) reads the index alone. With a table seek per row for the
/// sender, reading the first page of a million unread recounted the rest
/// in 1.9 s here; from the index, 0.06-0.09 s. Pages, day sections and
/// catch-up ranges use it as before.
extension Schema {
    static let unreadCoveringIndex = """
        DROP INDEX messages_room_time;
        CREATE INDEX messages_room_time ON messages (room, sent_at, id, sender);
        """
}

/// Migration 8: public messages in arrival order, for catch-up replies.
/// Without it SQLite answered `seq > ? AND room = 'public' ORDER BY seq`
/// from the room index: every public row read (a table seek each for
/// `seq`) and sorted, for every page a peer asked for, on the store's one
/// queue (2.7 ms a page at 10k messages, 44.6 ms at 200k; 3 ms with this).
extension Schema {
    static let roomSequenceIndex = """
        CREATE INDEX messages_room_seq ON messages (room, seq);
        """
}
