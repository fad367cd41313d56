import ChatCore

/// The node's limits and timings, in one place. docs/OPERATIONS.md's NodeLimits table
/// lists `documentedRows`, checked by a test: a new limit is a constant
/// here, a row in `documentedRows` and the same row in docs/OPERATIONS.md.
public enum NodeLimits {
    /// Most messages in one history reply (a page).
    public static let catchUpPageSize = 200
    /// Messages in a probe page: what a peer other than the catch-up
    /// source is first asked for (see `CatchUpRound`).
    public static let catchUpProbeSize = 20
    /// A reply is kept under this many bytes of JSON, well inside the line limit.
    public static let catchUpReplyBytes = 48 * 1024
    /// First contact (or a peer whose store is new): its newest this many
    /// stored messages, at most.
    public static let catchUpFirstContact: Int64 = 1000
    /// Each peer may make us answer this many requests at once, refilled at
    /// `catchUpRefillPerSecond`.
    public static let catchUpBurst = 8.0
    public static let catchUpRefillPerSecond = 2.0
    /// A page not answered within this is asked of another linked peer
    /// (the default of `NodeOptions.catchUpTimeout`).
    public static let catchUpTimeout = Duration.seconds(5)
    /// A page that could not be stored is asked again after this.
    public static let catchUpRetry = Duration.seconds(1)
    /// The store is said to write again only after this long without a
    /// refused write: a nearly full disk takes small commits and refuses
    /// larger ones, and each switch would otherwise be said.
    public static let storageRecoveryQuiet = Duration.seconds(5)
    /// An author whose first stored message arrived this long ago counts
    /// as known (`StorageTrust.known`): room of its own, out of the pool
    /// unknown authors share. A day: a flood of fresh keys cannot wait it
    /// out unnoticed, while a neighbour seen yesterday is known today.
    public static let knownAfter = Duration.seconds(24 * 3600)
    static let knownAfterMillis: Int64 = 24 * 3600 * 1000
    /// Pages in a row with nothing new after which a catch-up source lets a
    /// waiting peer go first.
    public static let catchUpIdlePagesBeforeYield = 3
    /// Most frames and commands planned and committed together. Under a
    /// flood every step is this big, so each commit's fixed cost (the
    /// fsync) is shared by this many: 4096 stored about 15% faster per
    /// message than 1024 here (bench row `receive`).
    public static let maxCommitBatch = 4096
    /// Transport events waiting before the node asks the transport to stop
    /// reading its peers, and the level at which it reads again.
    public static let inboxHighWater = 8192
    public static let inboxLowWater = 1024
    /// Events held for a front end that does not read: beyond this many,
    /// or past `eventBufferBytes` of them, the oldest are dropped (and
    /// counted); messages stay in the history.
    public static let eventBuffer = 65_536
    /// The events' approximate size (`NodeEvent.approximateBytes`) held at
    /// once for a front end that lags: about 9,000 message events of chat
    /// length. A count alone let a node flooded by 20 peers hold some 60 MB
    /// of events (and as much again in the batch taken) for a JSON client
    /// reading slower than the flood.
    public static let eventBufferBytes = 8 * 1024 * 1024
    /// Timestamps further ahead of the local clock than this (ms) are
    /// clamped to the local clock (see docs/OPERATIONS.md, "Ordering and clocks").
    public static let maxClockSkew: Int64 = 5 * 60 * 1000
    /// How often the outbox is checked for retries while it holds DMs.
    public static let outboxTick = Duration.milliseconds(100)
    /// Ids of others' stored public messages whose signature was checked
    /// before relaying (verified, and refused), remembered so a page asked
    /// again is not verified again; a forgotten one is verified again.
    public static let relayCheckMemory = 4096

    public static let documentedRows: [LimitRow] = [
        LimitRow("catchUpPageSize", catchUpPageSize, "messages", "one history reply (a page)"),
        LimitRow("catchUpProbeSize", catchUpProbeSize, "messages", "a probe page asked of a peer other than the source"),
        LimitRow("catchUpReplyBytes", catchUpReplyBytes, "bytes", "one history reply's JSON"),
        LimitRow("catchUpFirstContact", catchUpFirstContact, "messages", "newest stored messages offered on first contact"),
        LimitRow("catchUpBurst", catchUpBurst, "requests", "history requests one peer may have answered at once"),
        LimitRow("catchUpRefillPerSecond", catchUpRefillPerSecond, "per second", "answered history requests per peer after the burst"),
        LimitRow("catchUpTimeout", catchUpTimeout, "a page unanswered this long is asked of another peer"),
        LimitRow("catchUpRetry", catchUpRetry, "a page that could not be stored is asked again after this"),
        LimitRow("storageRecoveryQuiet", storageRecoveryQuiet, "the store is said to write again after this long without a refused write"),
        LimitRow("knownAfter", knownAfter, "an author first stored this long ago is known: out of the shared pool of unknown authors"),
        LimitRow("catchUpIdlePagesBeforeYield", catchUpIdlePagesBeforeYield, "pages", "pages in a row with nothing new before the source yields, or a probed peer's turn ends"),
        LimitRow("maxCommitBatch", maxCommitBatch, "frames", "frames and commands committed in one transaction"),
        LimitRow("inboxHighWater", inboxHighWater, "events", "waiting transport events before reading is paused"),
        LimitRow("inboxLowWater", inboxLowWater, "events", "waiting transport events at which reading resumes"),
        LimitRow("eventBuffer", eventBuffer, "events", "events held for a front end that stops reading"),
        LimitRow("eventBufferBytes", eventBufferBytes, "bytes", "the same events' approximate size, held at once"),
        LimitRow("maxClockSkew", Duration.milliseconds(maxClockSkew), "how far ahead a timestamp may be before it is clamped"),
        LimitRow("outboxTick", outboxTick, "how often waiting DMs are checked for a retry"),
        LimitRow("relayCheckMemory", relayCheckMemory, "ids", "checked signatures remembered (verified, and refused) before relaying"),
    ]
}
