import ChatCore

extension P2PConfiguration {
    /// docs/OPERATIONS.md's P2PConfiguration table, row for row, with these values (the
    /// defaults, for the document): the transport's timings and its per-link
    /// output bound. A new one: a field of `P2PConfiguration`, a line here,
    /// the same row in docs/OPERATIONS.md. Its `limits` have their own table (`PeerLimits`).
    public var documentedRows: [LimitRow] {
        [
            LimitRow("beaconInterval", beaconInterval, "mean time between beacons up to 20 known nodes (then longer, up to 15 times this: `BeaconSchedule`), each wait jittered ±20%"),
            LimitRow("discoveryHold", discoveryHold, "above the overlay's threshold, with nothing short due, beacons heard wait at most this long to be read together with whatever wakes the node next"),
            LimitRow("handshakeTimeout", handshakeTimeout, "longest wait for the next handshake message; the whole handshake gets twice this"),
            LimitRow("keepaliveInterval", keepaliveInterval, "a link we dialled with nothing sent for this long sends a ping (one we accepted: 1.5 times as long; above the overlay's threshold, overlay links twice as long, never past 2/3 of deadPeerTimeout, or 6 times as long after a quiet ping when both ends list quietLinks)"),
            LimitRow("deadPeerTimeout", deadPeerTimeout, "a link with nothing received for this long is dead (above the overlay's threshold, an overlay link twice as long; 6 times as long after a quiet ping); an unrenewed announcement expires (stretched as the beacon interval is; on a LAN where beacons are skipped, not before the longest silence the schedule allows a node that counts twice as many nodes, and one more interval)"),
            LimitRow("writeTimeout", writeTimeout, "a link whose queued output makes no progress for this long is cut"),
            LimitRow("reconnectDelay", reconnectDelay, "first wait before redialling; doubles per failure, jittered ±20%"),
            LimitRow("maxReconnectDelay", maxReconnectDelay, "the longest wait before redialling"),
            LimitRow("maxQueuedBytesPerLink", maxQueuedBytesPerLink, "bytes", "output queued for one link; more cuts the link"),
        ]
    }
}
