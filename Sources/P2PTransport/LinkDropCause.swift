/// Why a link is being closed; decides the `.peerLeft` reason and what the
/// service does next.
enum LinkDropCause: Sendable {
    /// The peer closed the connection (or it was reset).
    case endOfStream
    case ioError(TransportError)
    /// The peer broke the protocol; it is told nothing more.
    case violation(String)
    /// A deadline passed (handshake, dead peer, write progress, queue size).
    case timedOut(String)
    /// The peer said leave.
    case left
    /// The tie-break or an identity conflict chose another link.
    case superseded(String)
    /// A probe found the link dead while a new instance of its peer beacons.
    case restarted
}
