import ChatCore

/// What the node tells its front end (console, JSON lines, bot).
public enum NodeEvent: Hashable, Sendable {
    /// The node is up and announcing itself.
    case started(NodeIdentity)
    case peerJoined(PeerInfo)
    /// A peer changed its nickname or stage; `previous` is what it was.
    case peerUpdated(PeerInfo, previous: PeerInfo?)
    case peerLeft(PeerInfo, PeerLeaveReason)
    /// A new message in a room, from a peer or from this node; stored
    /// before it is reported.
    case message(Message)
    /// A peer asks to open a DM conversation; `message` is its first text.
    case dmRequest(PeerInfo, message: Message)
    /// Where a DM conversation's request flow stands now.
    case dmState(peer: NodeNumber, nickname: String, DMState)
    /// An outgoing DM moved on: sent, delivered (the peer stored it), failed.
    case delivery(MessageID, room: RoomID, DeliveryState)
    case unread(RoomID, count: Int)
    /// Catch-up brought `count` public messages this node had missed.
    case caughtUp(from: NodeNumber, count: Int)
    /// A peer's frame was refused (the reason is safe to show).
    case rejected(from: NodeNumber, reason: String)
    /// The node is shutting down.
    case stopped
    /// The history store stopped taking writes (the reason, safe to show),
    /// or took them again (nil). Said once per change, not per message.
    case storage(failure: String?)
    /// A peer reached its storage quota (`NodeOptions.peerStorageQuota`):
    /// its new messages are not stored; said once per peer per run.
    case peerQuota(peer: NodeNumber, nickname: String, quotaBytes: Int)
    /// A peer uses a nickname that belongs to another key (ChatNode+Keys.swift):
    /// it may be someone else. After its `peerJoined` / `peerUpdated`.
    case keyChanged(KeyChange)
    /// A file transfer moved on (FileTransfers.swift).
    case file(FileTransferEvent)
}

extension NodeEvent {
    /// Roughly what the event holds in memory, in bytes, for the node's
    /// event buffer (`NodeLimits.eventBufferBytes`): a fixed part for the
    /// value and its containers, plus the text it carries. A message event
    /// of 65 characters measured about 900 bytes of heap under a flood.
    public var approximateBytes: Int {
        switch self {
        case .message(let message), .dmRequest(_, let message):
            return 640 + message.approximateTextBytes
        case .rejected(_, let reason):
            return 256 + reason.utf8.count
        default:
            return 256
        }
    }
}

extension Message {
    /// The UTF-8 bytes of the message's strings.
    var approximateTextBytes: Int {
        content.utf8.count + senderNickname.utf8.count + (senderStage?.utf8.count ?? 0)
            + (signature?.utf8.count ?? 0) + (authorKey?.utf8.count ?? 0)
    }
}
