import ChatCore
import ChatCrypto
import Foundation

/// One TCP connection to a peer, from connect to close. Owned by the
/// `P2PService` actor and never handed out, so a class (mutated in place)
/// is safe without being Sendable.
final class PeerLink {
    /// Malformed lines tolerated on an established link before it is cut.
    static let malformedLimit = 3

    /// The poll loop token; unique for the service's lifetime.
    let id: Int
    let fd: Int32
    let direction: LinkDirection
    /// Dialled address, or the peer's address and ephemeral port if inbound.
    let remote: IPv4Endpoint
    // Its phase, timestamps and deadlines are the core's
    // (`TransportCore.LinkEntry`, same id).
    /// For discovery dials: the number the beacon announced.
    var expectedNumber: NodeNumber?
    /// For static dials: the index in the service's static peer list.
    var staticIndex: Int?
    /// The peer as its verified identity payload stated; set from the
    /// handshake on.
    var peer: PeerInfo?
    /// The Noise handshake until it finishes, then the record ciphers.
    var handshake: LinkHandshake?
    var transport: NoiseTransport?
    /// Where the peer accepts links: this link's remote address with the
    /// hello's `listenPort`. Beacons about the peer must come from here.
    var listenEndpoint: IPv4Endpoint?
    /// Splits received bytes into length-prefixed handshake messages and
    /// records (the length is checked before a body is held); `decoder`
    /// turns each opened record into a frame.
    var records = RecordFrameDecoder()
    /// Nothing received yet: the first byte tells a v1 peer (`{`).
    var receivedNothing = true
    let decoder = JSONDecoder()
    /// What frames may still cost this link now (see `PeerLimits`).
    var budget: TokenBucket
    /// An opened record that the budget could not pay for yet.
    var unpaidLine: [UInt8]?
    /// Reading is paused until the budget pays for `unpaidLine`.
    var isThrottled = false
    /// Recent frame ids, to drop a frame repeated on this link.
    var recentIDs: RecentIDs
    /// Sealed bytes (handshake messages, records) waiting for the socket.
    var output: OutboundQueue
    /// Frames not sealed yet: sealed only as the socket takes them, so
    /// that when this link is replaced they move to the new one unsent
    /// (see `P2PService.establish`).
    var unsealed: OutboundQueue
    var malformedCount = 0
    /// The peer's hello lists `overlay`: overlay frames go on this link.
    var speaksOverlay = false
    /// The peer's hello lists `quietLinks` (PROTOCOL.md 5.1).
    var speaksQuiet = false
    /// Opened on demand for direct frames above the overlay's threshold
    /// (`direct` in the dialler's hello): outside the overlay's views,
    /// carries only direct frames, closed when idle.
    var onDemand = false
    /// A write failed (the peer closed); the link is read to its end
    /// before it is dropped with this error (`P2PService.peerStoppedReading`).
    var writeFailure: TransportError?
    private(set) var isClosed = false

    init(id: Int, fd: Int32, direction: LinkDirection, remote: IPv4Endpoint, queueLimit: Int, limits: PeerLimits) {
        self.id = id
        self.fd = fd
        self.direction = direction
        self.remote = remote
        output = OutboundQueue(limit: queueLimit)
        unsealed = OutboundQueue(limit: queueLimit)
        budget = TokenBucket(capacity: Double(limits.frameBurst), perSecond: limits.framesPerSecond)
        recentIDs = RecentIDs(capacity: limits.recentIDsPerLink)
    }

    /// The number this link is for: from the hello, else what we expect.
    var peerNumber: NodeNumber? { peer?.number ?? expectedNumber }

    /// Bytes queued for this peer, sealed or not.
    var queuedByteCount: Int { output.byteCount + unsealed.byteCount }

    /// A retiring link sends FIN once its sealed output is written (then
    /// this turns false again); see `P2PService.retire`.
    var finOnDrain = false

    func markClosed() { isClosed = true }
}
