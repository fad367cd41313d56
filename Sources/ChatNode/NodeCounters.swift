import ChatCore

/// What the node refused or did on peers' behalf, for `/stats` and `--json`.
public struct NodeCounters: Hashable, Sendable, Codable {
    /// Frames received per type name (including unknown types).
    public var receivedByType: [String: Int] = [:]
    /// Messages stored (new rows: this node's own and others', live and
    /// caught up), counted when their commit returns.
    public var stored = 0
    /// Frames refused by the chat rules, per reason.
    public var rejected = 0
    public var unknownType = 0
    /// Chat frames whose id was already stored.
    public var duplicates = 0
    /// Timestamps more than `NodeLimits.maxClockSkew` ahead, clamped.
    public var clampedTimestamps = 0
    /// Catch-up requests answered late because of the rate limit.
    public var catchUpDeferred = 0
    /// Catch-up requests dropped: a newer one from the same peer was waiting.
    public var catchUpRefused = 0
    /// Frames inside history replies that were not valid public messages.
    public var catchUpInvalid = 0
    /// History replies that answered no request of ours: refused.
    public var catchUpUnsolicited = 0
    /// History pages merged (each moves that peer's catch-up cursor).
    public var catchUpPages = 0
    /// Steps whose commit failed (nothing of them was applied).
    public var commitFailures = 0
    /// Events dropped because the front end stopped reading (see `NodeLimits.eventBuffer`).
    public var eventsDropped = 0
    /// Times the node asked the transport to stop reading (it lagged).
    public var backpressure = 0
    /// Public messages (live or relayed) refused for their signature, per
    /// `SignatureVerdict` name (unsigned, malformed, wrongAuthorKey, badSignature,
    /// notLinkKey).
    public var signatureRefusals: [String: Int] = [:]
    /// Stored public messages of others not relayed in a catch-up reply
    /// because their signature failed the check before relaying, per
    /// `SignatureVerdict` name (each counted once while remembered).
    public var relayRefusals: [String: Int] = [:]
    /// History-reply entries claiming this node as author that it does not hold.
    public var relayedClaimingSelf = 0
    /// Messages refused because their author reached its storage quota.
    public var quotaRefused = 0
    /// Messages of unknown authors aged out of their shared pool.
    public var agedOut = 0
    /// Catch-up requests not answered in time, asked of another peer.
    public var catchUpTimeouts = 0
    public var acksSent = 0
    public var dmRetries = 0

    public init() {}

    /// Adds every count of `other` to these.
    public mutating func add(_ other: NodeCounters) {
        receivedByType.merge(other.receivedByType, uniquingKeysWith: +)
        stored += other.stored
        rejected += other.rejected
        unknownType += other.unknownType
        duplicates += other.duplicates
        clampedTimestamps += other.clampedTimestamps
        catchUpDeferred += other.catchUpDeferred
        catchUpRefused += other.catchUpRefused
        catchUpInvalid += other.catchUpInvalid
        catchUpUnsolicited += other.catchUpUnsolicited
        catchUpPages += other.catchUpPages
        commitFailures += other.commitFailures
        eventsDropped += other.eventsDropped
        backpressure += other.backpressure
        signatureRefusals.merge(other.signatureRefusals, uniquingKeysWith: +)
        relayRefusals.merge(other.relayRefusals, uniquingKeysWith: +)
        relayedClaimingSelf += other.relayedClaimingSelf
        quotaRefused += other.quotaRefused
        agedOut += other.agedOut
        catchUpTimeouts += other.catchUpTimeouts
        acksSent += other.acksSent
        dmRetries += other.dmRetries
    }
}
