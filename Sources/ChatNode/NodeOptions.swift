import ChatCore
import ChatStore

/// The node's tunable limits, fixed at start.
public struct NodeOptions: Sendable {
    /// Bytes of stored messages (as `StorageUsage` counts them) one other
    /// peer may author, public and DM; past it that peer's new messages are
    /// refused in the plan (see ChatNode+Quota.swift).
    public var peerStorageQuota: Int
    /// A catch-up page not answered within this is asked of another linked
    /// peer (see ChatNode+CatchUp.swift).
    public var catchUpTimeout: Duration

    public init(peerStorageQuota: Int = ChatLimits.storedBytesPerPeer, catchUpTimeout: Duration = NodeLimits.catchUpTimeout) {
        self.peerStorageQuota = peerStorageQuota
        self.catchUpTimeout = catchUpTimeout
    }

    /// The default per-peer quota for a history capped at `historyBytes`
    /// (nil: no cap): a share of the cap, so one peer, or a few, cannot
    /// fill it (counted bytes leave room for indexes and pages), and never
    /// more than `ChatLimits.storedBytesPerPeer`.
    public static func defaultPeerQuota(historyBytes: Int?) -> Int {
        guard let historyBytes else { return ChatLimits.storedBytesPerPeer }
        return max(1, min(ChatLimits.storedBytesPerPeer, historyBytes / ChatLimits.peerShareOfHistoryCap))
    }
}
