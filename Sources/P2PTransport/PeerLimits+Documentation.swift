import ChatCore

extension PeerLimits {
    /// docs/OPERATIONS.md's PeerLimits table, row for row, with these values (the
    /// defaults, for the document). A new limit: a field of `PeerLimits`, a line
    /// here, the same row in docs/OPERATIONS.md.
    public var documentedRows: [LimitRow] {
        [
            LimitRow("maxLinks", maxLinks, "links", "links in any phase; more are closed at once"),
            LimitRow("maxPendingLinks", maxPendingLinks, "connections", "without a finished hello, in all; the oldest is closed to make room"),
            LimitRow("maxPendingLinksPerAddress", maxPendingLinksPerAddress, "connections", "without a finished hello, per IP address"),
            LimitRow("maxPendingLinksPerLoopbackAddress", maxPendingLinksPerLoopbackAddress, "connections",
                     "the same for 127/8, this host's own nodes (all dial from 127.0.0.1)"),
            LimitRow("connectionBurstPerAddress", connectionBurstPerAddress, "connections", "attempts per IP address at once"),
            LimitRow("connectionsPerSecondPerAddress", connectionsPerSecondPerAddress, "per second", "attempts per IP address after the burst"),
            LimitRow("frameBurst", frameBurst, "tokens", "frames one link may deliver at once"),
            LimitRow("framesPerSecond", framesPerSecond, "tokens per second", "a link's frame budget after the burst"),
            LimitRow("bytesPerFrameToken", bytesPerFrameToken, "bytes", "a frame costs 1 token plus 1 per full this many bytes"),
            LimitRow("recentIDsPerLink", recentIDsPerLink, "ids", "message ids each link remembers to drop repeats"),
        ]
    }
}
