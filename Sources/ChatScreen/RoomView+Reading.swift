import ChatCore

/// What the reader has seen of the open room: "reading is what the eye
/// saw". A message is seen once a frame has shown it in full for
/// `ScreenReducer.dwell` (a burst flashing past between two frames is not);
/// the read marker moves over seen messages only, from the marker on, never
/// across a gap. Catch-up, live and paged messages go by the same rule.
extension RoomView {
    /// Whether a message from others that is unseen (after `readMarker`)
    /// lies before `index`: then marking from `index` on would skip it.
    public func unseen(before index: Int) -> Bool {
        firstNewer(than: readMarker, before: index) != nil
    }

    /// The oldest message from others before `index` that is newer than
    /// `cursor` (all of them when nil), walking back from `index` while
    /// messages are newer: O(messages newer than `cursor`).
    func firstNewer(than cursor: HistoryCursor?, before index: Int) -> Int? {
        var found: Int?
        var at = min(index, messages.count) - 1
        while at >= 0, cursor.map({ messages[at].cursor > $0 }) ?? true {
            if !messages[at].isOwn { found = at }
            at -= 1
        }
        return found
    }

    /// The store was asked to mark up to `cursor`: the screen's own idea of
    /// the marker follows.
    mutating func marked(upTo cursor: HistoryCursor) {
        markedUpTo = cursor
        readMarker = max(readMarker ?? cursor, cursor)
    }

    /// A frame showed messages up to `cursor`.
    mutating func drew(through cursor: HistoryCursor) {
        followedThrough = max(followedThrough ?? cursor, cursor)
    }

    /// A frame at `now` shows `first...last` in full. Returns the newest of
    /// them the reader has seen, if the run from `first` to it was all seen
    /// (each on screen for `dwell`, counted from when it was first drawn
    /// whole in an unbroken run of frames).
    mutating func sighted(_ first: Int, _ last: Int, at now: Duration, dwell: Duration) -> Int? {
        var since: [MessageID: Duration] = [:]
        since.reserveCapacity(last - first + 1)
        var seen: Int?
        var unbroken = true
        for index in first...last {
            let id = messages[index].message.id
            let start = shownSince[id] ?? now
            since[id] = start
            if unbroken, now - start >= dwell { seen = index } else { unbroken = false }
        }
        shownSince = since
        drew(through: messages[last].cursor)
        return seen
    }

    /// Following would scroll `index`, never drawn, off the top: the view
    /// stops instead at the first unseen message (unless the reader jumped
    /// past it), a couple of messages of context above it, and the unread
    /// line goes there unless one still waits further up.
    mutating func stopFollowing(at index: Int) {
        let skipped = [readMarker, skippedThrough].compactMap { $0 }.max()
        let first = firstNewer(than: skipped, before: index + 1) ?? index
        if unreadLineBefore.map({ line in readMarker.map { line <= $0 } ?? false }) ?? true {
            unreadLineBefore = messages[first].cursor
        }
        leftBottom(top: max(0, first - 2))
    }
}
