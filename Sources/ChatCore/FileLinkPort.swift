/// The transfer links as the node's file transfers see them (PROTOCOL.md,
/// "File transfer"): files this node serves to a peer that dials it, and
/// files it fetches by dialling the peer that offered them. The real one is
/// `FileTransferService` (P2PTransport); the node never touches a socket or
/// a file's bytes itself.
public protocol FileLinkPort: Sendable {
    /// What the links report, in order per transfer.
    var linkEvents: AsyncStream<FileLinkEvent> { get }
    /// The TCP port transfer links are accepted on (0 before `start`).
    var port: Int { get }
    /// Opens the listener; returns its port.
    func start() throws -> Int
    /// Closes the listener and every link.
    func stop()
    /// Reads a file to offer: its size, modification time and SHA-256
    /// (blocking: the caller runs it off the actor).
    func inspect(path: String) throws -> FileFacts
    /// Serves `file` to the peer whose key it names, until `unserve`.
    func serve(_ file: ServedFile)
    func unserve(_ id: MessageID)
    /// Dials the sender and appends to the partial file (resuming from its
    /// length) until the file is whole and verified, or the link fails.
    /// False when a link for this transfer still runs (it may be on its way
    /// down after a cut): nothing started, the caller tries again later.
    @discardableResult
    func fetch(_ request: FetchRequest) -> Bool
    /// Stops a fetch or a served link that is running (nothing if none).
    func interrupt(_ id: MessageID)
    /// Counters for `/stats` (names start with "file").
    func diagnostics() -> [String: Int]
}

extension FileLinkPort {
    public func diagnostics() -> [String: Int] { [:] }
}

/// A file on this node's disk as offered.
public struct FileFacts: Hashable, Sendable {
    public var size: Int64
    /// Modification time, nanoseconds since 1970: a change means the file
    /// is no longer the one offered.
    public var modified: Int64
    /// Lowercase hex.
    public var sha256: String

    public init(size: Int64, modified: Int64, sha256: String) {
        self.size = size
        self.modified = modified
        self.sha256 = sha256
    }
}

/// A file served to one peer.
public struct ServedFile: Hashable, Sendable {
    public var id: MessageID
    /// The receiver's Ed25519 key, base64 (`PeerInfo.identityKey`).
    public var peerKey: String
    public var peer: NodeNumber
    public var path: String
    public var facts: FileFacts

    public init(id: MessageID, peerKey: String, peer: NodeNumber, path: String, facts: FileFacts) {
        self.id = id
        self.peerKey = peerKey
        self.peer = peer
        self.path = path
        self.facts = facts
    }
}

/// A file to fetch from the peer that offered it.
public struct FetchRequest: Hashable, Sendable {
    public var id: MessageID
    /// The sender's Ed25519 key, base64: the transfer link must prove it.
    public var peerKey: String
    public var host: String
    public var port: Int
    public var partialPath: String
    public var size: Int64
    public var sha256: String

    public init(id: MessageID, peerKey: String, host: String, port: Int, partialPath: String, size: Int64, sha256: String) {
        self.id = id
        self.peerKey = peerKey
        self.host = host
        self.port = port
        self.partialPath = partialPath
        self.size = size
        self.sha256 = sha256
    }
}

/// What a transfer link did.
public enum FileLinkEvent: Hashable, Sendable {
    /// Bytes of the file now on the receiver's disk (both sides; at most a
    /// few per second per transfer).
    case progress(MessageID, bytes: Int64)
    /// Receiver: every byte arrived, the SHA-256 matched, the partial file
    /// is flushed and whole.
    case received(MessageID)
    /// Sender: the receiver verified the whole file.
    case sent(MessageID)
    /// The link ended before the end; a new link resumes.
    case interrupted(MessageID, reason: String)
    /// The transfer cannot succeed (file changed, hash mismatch, refused).
    case failed(MessageID, reason: String)
}

/// Caps and timings of file transfers (PROTOCOL.md, "Receiver rules").
public enum FileTransferLimits {
    /// Offers waiting for an answer, per peer and in all; past them an
    /// offer is declined unseen.
    public static let pendingOffersPerPeer = 16
    public static let pendingOffers = 64
    /// Transfers running at once, each way, per peer and in all.
    public static let activePerPeer = 2
    public static let active = 4
    /// Free space that must remain on the download disk after a file.
    public static let diskReserve: Int64 = 256 * 1_048_576
    /// File bytes per data record (a record's plaintext is at most 65519).
    public static let chunkBytes = 65_510
    /// Each handshake message must arrive within this.
    public static let handshakeTimeoutSeconds = 5
    /// A transfer link silent for this long is dropped.
    public static let idleTimeoutSeconds = 30
    /// Progress events per transfer, at most one per this many ms.
    public static let progressIntervalMillis: Int64 = 250
}
