/// What the node needs from its history store: one transactional write
/// (`commit`) and the reads for start-up, duplicate checks, catch-up and
/// paging. The storage port, beside the transport's (`PeerTransport`): the
/// node depends on it and not on SQLite. `ChatStore` (SQLite) is the real
/// one; tests wrap it to inject faults (a failing commit, a full disk, a
/// slow fsync).
public protocol ChatStoring: Actor {
    /// Writes all of `changes` or none of them (see `StoreChanges`).
    func commit(_ changes: StoreChanges) async throws(StoreError) -> StoreCommitResult
    /// Which of `ids` are stored and what `authors`' stored messages take,
    /// in one read: the node's one store hop before it plans a step.
    func lookUp(ids: [MessageID], authors: [NodeNumber]) async throws(StoreError) -> StoreLookup
    func rooms() async throws(StoreError) -> [RoomSummary]
    func conversations() async throws(StoreError) -> [(peer: NodeNumber, nickname: String, state: DMState)]
    func page(_ room: RoomID, before cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> [Message]
    func messages(in room: RoomID, after cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> [Message]
    func newestCursor(_ room: RoomID) async throws(StoreError) -> HistoryCursor?
    /// Outgoing DMs still waiting for an acknowledgement, with their state.
    func undelivered() async throws(StoreError) -> [Message]
    func delivery(of id: MessageID) async throws(StoreError) -> DeliveryState?
    /// DMs held for a key change, oldest first.
    func held() async throws(StoreError) -> [Message]
    func pageAroundReadMarker(_ room: RoomID, limit: Int) async throws(StoreError) -> HistoryPage
    func historyPage(_ room: RoomID, before cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> HistoryPage
    func historyPage(_ room: RoomID, after cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> HistoryPage
    func markRead(_ room: RoomID, upTo cursor: HistoryCursor) async throws(StoreError) -> Int
    /// Moves the marker over a run the reader was shown, unless an unseen gap precedes it.
    func markRead(_ room: RoomID, shownFrom start: HistoryCursor, upTo cursor: HistoryCursor) async throws(StoreError) -> Int
    func markAllRead(_ room: RoomID) async throws(StoreError) -> Int
    func integrityCheck() async throws(StoreError) -> Bool
    /// Random per store file (see `ChatStore.epoch`).
    nonisolated var epoch: String { get }
    func lastSeq() async throws(StoreError) -> Int64
    func publicMessages(afterSeq seq: Int64, limit: Int) async throws(StoreError) -> [(seq: Int64, message: Message)]
    func value(forKey key: String) async throws(StoreError) -> String?
    /// `/search`: messages of any room containing `query`, newest stored first.
    func search(_ query: SearchQuery, before: Int64?, limit: Int) async throws(StoreError) -> SearchResults
    /// The page of `room` around one message (a search result).
    func page(_ room: RoomID, around cursor: HistoryCursor, limit: Int) async throws(StoreError) -> HistoryPage
    /// Every row of the key ledger (ChatStore+Keys.swift).
    func keyLedger() async throws(StoreError) -> KeyLedgerRows
    /// Writes one key ledger change, all or nothing.
    func commitKeys(_ changes: KeyChanges) async throws(StoreError)
    /// Rehearses a received message's turn, leaving nothing, so the first
    /// real one costs what the next do (`ChatStore.warmUp`).
    func warmUp() async
}
