import ChatCore

/// A configured "host:port" peer and its dial schedule.
struct StaticPeer: Sendable {
    var address: HostPort
    /// The number its hello stated, once a link was up.
    var number: NodeNumber?
    var backoff: Backoff
    var nextDialAt: Duration = .zero
    /// A name lookup is running.
    var resolving = false
    /// The address turned out to be this node itself; never dialled again.
    var isSelf = false
}
