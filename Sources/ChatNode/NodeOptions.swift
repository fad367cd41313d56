import ChatCore

/// The node's tunable limits, fixed at start.
public struct NodeOptions: Sendable {
    /// Bytes of stored messages (as `StorageUsage` counts them) one known
    /// or verified peer may author, public and DM; past it that peer's new
    /// messages are refused in the plan (see ChatNode+TrustPools.swift).
    public var peerStorageQuota: Int
    /// Counted bytes of the one pool all unknown authors share; past it
    /// its oldest messages age out (see ChatNode+TrustPools.swift).
    public var unknownPoolBytes: Int
    /// Which peers the user verified (the key ledger's answer); none by default.
    public var verifiedPeers: VerifiedPeers
    /// Most frames and commands one step takes (`NodeLimits.maxCommitBatch`;
    /// less under a history cap, so each commit stays small: `WALBound`).
    public var commitBatch: Int
    /// A catch-up page not answered within this is asked of another linked
    /// peer (see ChatNode+CatchUp.swift).
    public var catchUpTimeout: Duration

    public init(peerStorageQuota: Int = ChatLimits.storedBytesPerPeer, unknownPoolBytes: Int? = nil,
                verifiedPeers: @escaping VerifiedPeers = { _ in false }, commitBatch: Int = NodeLimits.maxCommitBatch,
                catchUpTimeout: Duration = NodeLimits.catchUpTimeout) {
        self.peerStorageQuota = peerStorageQuota
        self.unknownPoolBytes = unknownPoolBytes ?? peerStorageQuota
        self.verifiedPeers = verifiedPeers
        self.commitBatch = max(1, commitBatch)
        self.catchUpTimeout = catchUpTimeout
    }

    /// The default per-peer quota for a history capped at `historyBytes`
    /// (nil: no cap): a share of the cap, so one peer, or a few, cannot
    /// fill it (counted bytes leave room for indexes and pages), and never
    /// more than `ChatLimits.storedBytesPerPeer`. The unknown authors'
    /// pool gets one such share too: a thousand fresh keys, one share.
    public static func defaultPeerQuota(historyBytes: Int?) -> Int {
        guard let historyBytes else { return ChatLimits.storedBytesPerPeer }
        return max(1, min(ChatLimits.storedBytesPerPeer, historyBytes / ChatLimits.peerShareOfHistoryCap))
    }
}
