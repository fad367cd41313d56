import ChatCore
import ChatStore

/// A `ChatStoring` that wraps a real `ChatStore` and makes commits fail on
/// demand: the Nth commit, every commit while the "disk is full", or at
/// random with a seeded generator; and can make every commit slow (a slow
/// fsync, waited out on the injected clock: a test on a `ManualClock`
/// advances it). Reads always pass through. A failed commit writes nothing, as
/// SQLite's rollback does.
public actor FaultyStore: ChatStoring {
    public let inner: ChatStore
    public nonisolated let epoch: String
    /// 1-based commit numbers that fail.
    private var failing: Set<Int> = []
    private var diskFull = false
    private var failureRate = 0.0
    private var random = SeededRandom(seed: 1)
    private var delay = Duration.zero
    private let clock: any ChatClock
    public private(set) var commits = 0
    /// Key ledger transactions that reached the store (each one an fsync on a file).
    public private(set) var keyCommits = 0
    public private(set) var failures = 0
    /// Lookups and commits in the order they reached the store.
    public private(set) var journal: [StoreCall] = []
    private var holdingLookups = false
    private var heldLookup: CheckedContinuation<Void, Never>?

    /// One call the store saw: a lookup of so many ids, a commit of so many
    /// messages (begun; failed at once), and a commit's successful return.
    public enum StoreCall: Equatable, Sendable {
        case lookUp(Int)
        case commit(Int, failed: Bool)
        case stored(Int)
    }

    public init(_ inner: ChatStore, clock: any ChatClock = SystemClock()) {
        self.inner = inner
        self.clock = clock
        epoch = inner.epoch
    }

    /// Makes the `n`th commit from now fail (1 = the next one).
    public func failCommit(_ n: Int) { failing.insert(commits + n) }

    /// While true every commit fails with SQLITE_FULL.
    public func setDiskFull(_ full: Bool) { diskFull = full }

    /// Each commit fails with probability `rate` (seeded, so a run replays).
    public func setFailureRate(_ rate: Double, seed: UInt64 = 1) {
        failureRate = rate
        random = SeededRandom(seed: seed)
    }

    /// Every commit takes at least this long on the store's clock (a slow disk).
    public func setCommitDelay(_ delay: Duration) { self.delay = delay }

    public func commit(_ changes: StoreChanges) async throws(StoreError) -> StoreCommitResult {
        commits += 1
        if diskFull || failing.remove(commits) != nil || (failureRate > 0 && random.chance(failureRate)) {
            failures += 1
            journal.append(.commit(changes.messages.count, failed: true))
            // SQLITE_FULL (13), as SQLite reports a full disk.
            throw .io(path: "history.sqlite", code: 13, message: "database or disk is full")
        }
        journal.append(.commit(changes.messages.count, failed: false))
        if delay > .zero { try? await clock.sleep(for: delay) }
        let result = try await inner.commit(changes)
        journal.append(.stored(changes.messages.count))
        return result
    }

    /// The next lookup waits until `releaseLookup()` (a step caught while
    /// it looks up, so the test can line up what arrives meanwhile).
    public func holdNextLookup() { holdingLookups = true }

    /// Whether a held lookup is waiting.
    public var lookupHeld: Bool { heldLookup != nil }

    public func releaseLookup() {
        heldLookup?.resume()
        heldLookup = nil
    }

    public func lookUp(ids: [MessageID], authors: [NodeNumber]) async throws(StoreError) -> StoreLookup {
        journal.append(.lookUp(ids.count))
        if holdingLookups {
            holdingLookups = false
            await withCheckedContinuation { heldLookup = $0 }
        }
        return try await inner.lookUp(ids: ids, authors: authors)
    }
    public func rooms() async throws(StoreError) -> [RoomSummary] { try await inner.rooms() }
    public func conversations() async throws(StoreError) -> [(peer: NodeNumber, nickname: String, state: DMState)] {
        try await inner.conversations()
    }
    public func page(_ room: RoomID, before cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> [Message] {
        try await inner.page(room, before: cursor, limit: limit)
    }
    public func messages(in room: RoomID, after cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> [Message] {
        try await inner.messages(in: room, after: cursor, limit: limit)
    }
    public func newestCursor(_ room: RoomID) async throws(StoreError) -> HistoryCursor? { try await inner.newestCursor(room) }
    public func undelivered() async throws(StoreError) -> [Message] { try await inner.undelivered() }
    public func delivery(of id: MessageID) async throws(StoreError) -> DeliveryState? { try await inner.delivery(of: id) }
    public func held() async throws(StoreError) -> [Message] { try await inner.held() }
    public func pageAroundReadMarker(_ room: RoomID, limit: Int) async throws(StoreError) -> HistoryPage {
        try await inner.pageAroundReadMarker(room, limit: limit)
    }
    public func historyPage(_ room: RoomID, before cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> HistoryPage {
        try await inner.historyPage(room, before: cursor, limit: limit)
    }
    public func historyPage(_ room: RoomID, after cursor: HistoryCursor?, limit: Int) async throws(StoreError) -> HistoryPage {
        try await inner.historyPage(room, after: cursor, limit: limit)
    }
    public func markRead(_ room: RoomID, upTo cursor: HistoryCursor) async throws(StoreError) -> Int {
        try await inner.markRead(room, upTo: cursor)
    }
    public func markRead(_ room: RoomID, shownFrom start: HistoryCursor, upTo cursor: HistoryCursor) async throws(StoreError) -> Int {
        try await inner.markRead(room, shownFrom: start, upTo: cursor)
    }
    public func markAllRead(_ room: RoomID) async throws(StoreError) -> Int { try await inner.markAllRead(room) }
    public func integrityCheck() async throws(StoreError) -> Bool { try await inner.integrityCheck() }
    public func lastSeq() async throws(StoreError) -> Int64 { try await inner.lastSeq() }
    public func publicMessages(afterSeq seq: Int64, limit: Int) async throws(StoreError) -> [(seq: Int64, message: Message)] {
        try await inner.publicMessages(afterSeq: seq, limit: limit)
    }
    public func value(forKey key: String) async throws(StoreError) -> String? { try await inner.value(forKey: key) }
    public func search(_ query: SearchQuery, before: Int64?, limit: Int) async throws(StoreError) -> SearchResults {
        try await inner.search(query, before: before, limit: limit)
    }
    public func page(_ room: RoomID, around cursor: HistoryCursor, limit: Int) async throws(StoreError) -> HistoryPage {
        try await inner.page(room, around: cursor, limit: limit)
    }
    public func keyLedger() async throws(StoreError) -> KeyLedgerRows { try await inner.keyLedger() }
    /// Fails as `commit` does while the disk is full.
    public func warmUp() async { await inner.warmUp() }

    public func commitKeys(_ changes: KeyChanges) async throws(StoreError) {
        if diskFull { throw .io(path: "history.sqlite", code: 13, message: "database or disk is full") }
        try await inner.commitKeys(changes)
        keyCommits += 1
    }
}
