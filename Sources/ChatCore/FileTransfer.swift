/// One file transfer as the node keeps it (and the store remembers it, so
/// a restart resumes it): who, what, where on disk, how far.
public struct FileTransfer: Hashable, Sendable {
    public enum Direction: String, Hashable, Sendable {
        case sending, receiving
    }

    public enum State: String, Hashable, Sendable {
        /// Sent or received, not answered yet.
        case offered
        /// Accepted: bytes flow whenever both sides are linked.
        case accepted
        case done
        case failed
        case declined
        case cancelled

        /// Over for good: nothing more happens to it.
        public var isFinished: Bool {
            switch self {
            case .offered, .accepted: false
            case .done, .failed, .declined, .cancelled: true
            }
        }
    }

    /// The offer's `messageId`.
    public var id: MessageID
    public var direction: Direction
    public var peer: NodeNumber
    public var peerNickname: String
    /// The peer's Ed25519 key (base64) its chat link proved when the offer
    /// was made or received; the transfer link must prove the same.
    public var peerKey: String
    /// Sending: the file's name as offered. Receiving: the cleaned name
    /// (`FileName`), or the name it was saved under once done.
    public var name: String
    public var size: Int64
    /// Lowercase hex.
    public var sha256: String
    /// Sending: the file offered. Receiving: the partial file, then where
    /// the file was saved.
    public var path: String
    /// Sending: the file's modification time (ns) when offered.
    public var modified: Int64
    /// Receiving: the port the sender's last offer named.
    public var port: Int
    public var state: State
    /// Bytes on the receiver's disk, as last reported.
    public var bytes: Int64
    /// Why it failed, was declined or cancelled (safe to show).
    public var reason: String?
    /// Recent rate while bytes flow, bytes a second (memory only; 0 when
    /// not known).
    public var bytesPerSecond: Int64 = 0

    public init(id: MessageID, direction: Direction, peer: NodeNumber, peerNickname: String, peerKey: String, name: String,
                size: Int64, sha256: String, path: String, modified: Int64 = 0, port: Int = 0, state: State,
                bytes: Int64 = 0, reason: String? = nil) {
        self.id = id
        self.direction = direction
        self.peer = peer
        self.peerNickname = peerNickname
        self.peerKey = peerKey
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.path = path
        self.modified = modified
        self.port = port
        self.state = state
        self.bytes = bytes
        self.reason = reason
    }
}
