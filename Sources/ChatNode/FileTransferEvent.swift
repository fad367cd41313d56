import ChatCore

/// What file transfers tell the front end (`NodeEvent.file`).
public enum FileTransferEvent: Hashable, Sendable {
    /// A peer offers a file (receiver); nothing is written until accepted.
    case offer(FileTransfer)
    /// The peer accepted a file this node offered (sender).
    case accepted(FileTransfer)
    /// Bytes on the receiver's disk so far (both sides; a few a second at most).
    case progress(FileTransfer)
    /// Verified: saved at `path` (receiver), or the receiver verified it (sender).
    case done(FileTransfer)
    /// Declined, cancelled or failed; `reason` says which (safe to show).
    case failed(FileTransfer)
}

/// What the node hands its file transfers: file frames and peer changes,
/// in arrival order.
enum FileNotice: Sendable {
    case frame(P2PPayload, from: NodeNumber, dmState: DMState)
    case joined(PeerInfo)
    case left(NodeNumber)
    /// The DM conversation with a peer changed: held offers are shown
    /// (accepted) or declined (declined by me).
    case dmState(NodeNumber, DMState)
}

extension FileTransferEvent {
    /// The transfer the event is about.
    public var transfer: FileTransfer {
        switch self {
        case .offer(let t), .accepted(let t), .progress(let t), .done(let t), .failed(let t): t
        }
    }

    /// An offer to this node that waits for the user's answer.
    public var isPendingOffer: Bool {
        if case .offer = self { true } else { false }
    }
}
