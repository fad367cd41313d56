/// What the transport counted, mostly what it refused. Read with
/// `P2PService.counters()`; the node shows them for diagnostics.
public struct TransportCounters: Hashable, Sendable, Codable {
    /// Links accepted from peers and dialled to peers (handshake or not).
    public var linksAccepted = 0
    public var linksDialled = 0
    /// Dials that failed to connect or to finish the handshake.
    public var dialFailures = 0
    /// Frames delivered to the node as `.received`.
    public var framesDelivered = 0
    /// Frames written (each link counts once).
    public var framesSent = 0
    /// Frames read off links, every kind (keepalives and link control too):
    /// beside the peer's `framesSent`, whether all it wrote has been read.
    public var framesRead = 0
    /// Beacons and leave datagrams sent and accepted.
    public var beaconsSent = 0
    public var beaconsReceived = 0
    /// Periodic beacons skipped as redundant (`BeaconSchedule`).
    public var beaconsSkipped = 0
    /// Extra beacons broadcast to answer newcomers (PROTOCOL.md 2.3; unicast
    /// answers, the start burst and periodic turns aside).
    public var answersBroadcast = 0
    /// Broadcast answers to newcomers not sent on a large LAN: the
    /// newcomer was linked while the answer waited, or enough others had
    /// answered and this node dialled it instead (`NewcomerAnswers`).
    public var answersSuppressed = 0
    /// Times the service's timer woke (`WakePlan`): an idle node wakes only
    /// when something is due.
    public var timerWakes = 0
    /// Batches of readiness the poll thread handed to the service, each a
    /// thread hand-off (`PollLoop.holdLazyReports` makes fewer of them).
    public var pollBatches = 0

    /// Frames whose `senderNumber` was not the link's identity; the link is cut.
    public var spoofed = 0
    /// Records whose frame was not valid (a few are tolerated per link), and
    /// record lengths under 16 bytes after the handshake (the link is cut).
    public var malformed = 0
    /// Links that did not finish the handshake in time.
    public var handshakeTimeout = 0
    /// Links whose hello (inside the verified identity payload) was not a
    /// valid hello, or whose first record was a frame before acceptance.
    public var badHello = 0
    /// Handshakes that failed: a message that did not decrypt or verify
    /// (a wrong group secret, a replayed or tampered message, a bad
    /// identity signature), or a malformed length prefix.
    public var handshakeFailures = 0
    /// Verified peers whose hello claimed a number their key does not
    /// derive (someone else's number): refused.
    public var claimedNumbers = 0
    /// Records that did not open (tampered, replayed, reordered, or sent
    /// under other keys); the link is cut.
    public var recordFailures = 0
    /// Connections that spoke protocol v1 (a JSON hello line): refused
    /// with a v1 line that names both versions.
    public var versionRefusals = 0
    /// hello frames after the handshake (dropped).
    public var lateHello = 0
    /// Frames of a type this build does not know (delivered as `.unknown`).
    public var unknownType = 0
    /// Links cut because output made no progress within `writeTimeout`.
    public var writeTimeout = 0
    /// Links cut because output would exceed `maxQueuedBytesPerLink`.
    public var queueOverflow = 0
    /// Links silent past `deadPeerTimeout`.
    public var deadPeer = 0
    /// Second links to an already linked peer closed by the tie-break.
    public var duplicateLinks = 0
    /// Claims of a linked peer's number by another instance while the link
    /// still answered (the claim is refused).
    public var identityConflicts = 0
    /// Datagrams on the discovery port that were not a valid beacon.
    public var malformedBeacons = 0
    /// Beacons or leave datagrams naming a linked peer, with its instance
    /// id, from an address or port other than its link's, that would have
    /// changed something (names, port, a leave): ignored.
    public var beaconConflicts = 0

    // Limits on what peers may make the node do (`PeerLimits`).

    /// Inbound connections closed at once: `maxLinks` links were open.
    public var refusedLinkCap = 0
    /// Inbound connections closed at once: their address was over its
    /// connection-attempt rate.
    public var refusedConnectionRate = 0
    /// Inbound connections closed at once: their address had
    /// `maxPendingLinksPerAddress` (or, for 127/8,
    /// `maxPendingLinksPerLoopbackAddress`) connections without a finished hello.
    public var refusedPendingPerAddress = 0
    /// Connections without a finished hello closed to make room for a new
    /// one (`maxPendingLinks` reached; the oldest goes).
    public var evictedPending = 0
    /// Times a link's reading was paused because its frames were over the
    /// per-link rate (`framesPerSecond`); it resumes as the budget refills.
    public var rateLimited = 0
    /// Frames repeating a message id recently seen on the same link (DM
    /// retries excepted): dropped.
    public var duplicateFrames = 0
    /// Dials postponed because `maxPendingDials` (or its per-address share)
    /// were under way, or `maxLinks` links were open; counted once per
    /// announcement until it is dialled.
    public var deferredDials = 0
    /// Beacons of a new number not recorded: the announcement table
    /// (`maxAnnouncements`, or the source address's share) was full.
    public var refusedAnnouncements = 0
    /// Announcements whose dials had failed, forgotten to make room.
    public var evictedAnnouncements = 0
    /// With a group secret: datagrams without a valid group tag, ignored.
    public var foreignBeacons = 0
    /// Datagrams from a source off the LAN (`DiscoverySources`), dropped unread.
    public var offLANDatagrams = 0

    /// Overlay (PROTOCOL.md, "Overlay"): its frames sent and taken, the
    /// malformed ones (counted against the link like malformed frames),
    /// links it closed, this node's messages it pushed, gossiped messages
    /// handed to the node, and those refused for their signature (the
    /// relaying peer is scored down).
    public var overlayFramesSent = 0
    public var overlayFramesReceived = 0
    public var overlayMalformed = 0
    public var overlayCloses = 0
    public var gossipPublished = 0
    public var gossipDelivered = 0
    /// Overlay frames taken by kind: whole messages (a duplicate too),
    /// IHAVEs, GRAFTs and PRUNEs, what a message costs a node beyond its
    /// first copy and how its eager links change.
    public var gossipReceived = 0
    public var ihavesReceived = 0
    public var graftsReceived = 0
    public var prunesReceived = 0
    public var gossipRefused = 0
    /// Gossiped public messages dropped past their author's budget
    /// (`OverlayConfig.authorBurst`, `authorPerSecond`).
    public var gossipOverBudget = 0
    /// Not counts but the overlay as it stands: 1 while it runs above its
    /// threshold (bounded links, gossip), and its active view's size.
    public var overlayPartial = 0
    public var overlayActivePeers = 0
    /// Not a count either: the LAN's size as the last beacon turn took it
    /// (nodes known alive, this one included; `BeaconSchedule`'s input).
    public var lanSizeEstimate = 0
    /// Direct reach above the threshold (PROTOCOL.md, "Overlay"): dials
    /// made on demand, on-demand links made, inbound ones refused over the
    /// cap, closed idle, frames of other kinds refused on them.
    public var directDials = 0
    public var directLinks = 0
    public var directRefused = 0
    public var directIdleCloses = 0
    public var directOffTopic = 0
    /// Sealed relay: envelopes sent, opened and handed to the node,
    /// refused after opening (inner frame not a direct frame of the
    /// sealer's for this node), replays dropped; relay frames passed on,
    /// dropped as repeats or over a peer's budget; card queries sent,
    /// cards learned and refused (signature or number wrong, not asked).
    public var sealedSent = 0
    public var sealedDelivered = 0
    public var sealedRefused = 0
    public var sealedReplayed = 0
    public var relayForwarded = 0
    public var relayDropped = 0
    public var cardQueries = 0
    public var cardsLearned = 0
    public var cardsRefused = 0

    public init() {}
}
