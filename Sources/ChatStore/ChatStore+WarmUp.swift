import ChatCore

/// A fresh process's first received message cost its store turn 500-575 µs
/// against 19-40 µs warm (lanchat-bench, this machine): about 110 µs of it
/// preparing the turn's statements, the rest code and data touched for the
/// first time. On one host of 1,000 nodes that first message cost the LAN
/// about a second of CPU more than the next (issue 29).
extension ChatStore {
    /// Runs a received public message's lookup and commit once and rolls
    /// them back, so the first message from a peer finds them prepared.
    /// Nothing stays, on disk or in memory (the in-memory trim count is put
    /// back). A failure only means the first message pays as before.
    public func warmUp() {
        guard let database = try? db() else { return }
        let untrimmed = self.untrimmed
        defer { self.untrimmed = untrimmed }
        let author = NodeNumber(rawValue: localNumber.rawValue == 1 ? 2 : 1)!
        let millis = Timestamp.millis(from: clock.now())
        let probe = Message(id: MessageID(millis: millis, random: (0, 0)), room: .publicRoom, senderNumber: author,
                            senderNickname: "warm-up", content: "warm-up", timestamp: millis)
        var changes = StoreChanges()
        changes.messages = [probe]
        do {
            try database.rolledBack { () throws(StoreError) in
                _ = try lookUp(ids: [probe.id], authors: [author])
                _ = try insertRows(changes, reclaim: 0)
            }
        } catch {
            logger.debug("warm-up not run: \(error)")
        }
    }
}
