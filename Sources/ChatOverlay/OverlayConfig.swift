/// Every number the overlay runs on, in one value. Defaults follow the
/// papers (HyParView: random walks of 6 and 3, shuffles of 3 + 4 peers;
/// Plumtree: eager push, lazy IHAVE, GRAFT on a timeout) scaled to a LAN
/// (links of a millisecond or so, so timeouts of a few hundred).
public struct OverlayConfig: Sendable, Hashable {
    /// Fewer known peers than this (this node included): full mesh, as
    /// before the overlay. At or above it: bounded views.
    public var fullMeshThreshold = 48
    /// Back to a full mesh below this (hysteresis, so a LAN near the
    /// threshold does not flap).
    public var fullMeshExit = 36

    /// Active view: target `ceil(log2(known + 1)) + activeViewConstant`,
    /// kept within `activeViewMin...activeViewMax - targetHeadroom`. `activeViewMax` is the
    /// hard cap on links the overlay keeps.
    public var activeViewMin = 4
    public var activeViewMax = 10
    public var activeViewConstant = 1
    /// The target stays this far under `activeViewMax` (not under
    /// `activeViewMin`), so a view under its target finds peers with room:
    /// a request is taken up to the cap. With the target at the cap (every
    /// node of 300 on one host heard all 300 once the announcement table
    /// kept them) nearly every view wanted a last slot its peers had
    /// filled, and the refused fills made and cut 20 links a second; the
    /// simulator's nodes, hearing ~150, aimed at 9 (issue 29).
    public var targetHeadroom = 1
    /// At most this many active peers were admitted on their own request
    /// (JOIN, NEIGHBOR, a walk's end): the rest this node chose from its
    /// passive view, so a flood of requests cannot take a whole view
    /// (GossipSub v1.1's outbound quota).
    public var inboundMax = 6
    public var passiveViewMax = 64
    /// Peers heard of (beacons, walks, shuffles): the size estimate.
    public var knownPeersMax = 512
    public var knownPeerLifetime: Duration = .seconds(60)

    /// JOIN's active random walk length (ARWL) and the hop at which a walk
    /// also leaves the joiner in a passive view (PRWL); also the shuffle walk.
    public var activeRandomWalk = 6
    public var passiveRandomWalk = 3
    public var shuffleInterval: Duration = .seconds(10)
    public var shuffleActive = 3
    public var shufflePassive = 4
    /// A view at or above `activeViewMin` whose last fill was refused
    /// waits this long before the next, doubling with each refusal in a row
    /// up to `fillRetryMax` (a view under the minimum fills at every tick).
    public var fillRetry: Duration = .seconds(1)
    public var fillRetryMax: Duration = .seconds(60)
    /// The step membership's short timers are sized for (tests drive
    /// `tick` by it). The shell does not tick by it: it sleeps until
    /// `Membership.nextDeadline`.
    public var membershipTick: Duration = .milliseconds(500)
    public var dialTimeout: Duration = .seconds(3)
    /// How long the membership waits for a link it dialled. Past the
    /// transport's own handshake deadline (3 s without progress, 6 s in
    /// all, longer on a loaded host), which reports a failure first: with
    /// `dialTimeout` the membership gave up on links still being made on a
    /// loaded host, and closed them as nobody's when they came up (churn).
    public var linkDialTimeout: Duration = .seconds(10)
    /// An inbound link that says nothing (no JOIN, NEIGHBOR, gossip) for
    /// this long is closed in partial mode (a loaded host reads its first
    /// frame late).
    public var inboundGrace: Duration = .seconds(8)
    /// An active peer whose link is lost without a DISCONNECT (a timeout,
    /// a reset) is dialled again once before the view replaces it, at most
    /// once per this window per peer: on a loaded host such a loss is
    /// mostly the host's, and both ends replacing each other made two new
    /// links, each evicting others (a replacement storm).
    public var redialWindow: Duration = .seconds(60)
    /// A JOIN from the same peer within this time is taken as a NEIGHBOR
    /// (no new walks); a walk for the same joiner is forwarded once.
    public var joinCooldown: Duration = .seconds(60)
    /// Peers that declined us or that we dropped for their score wait this long.
    public var cooldown: Duration = .seconds(60)
    /// Membership frames from one peer: burst and refill per second.
    public var controlBurst = 16.0
    public var controlPerSecond = 2.0
    /// Evictions a high-priority NEIGHBOR may cause: burst and per second.
    public var evictionBurst = 2.0
    public var evictionsPerSecond = 0.1
    /// Evictions JOINs into a full view may cause (HyParView admits every
    /// joiner; unbounded, each new identity's JOIN evicted an honest
    /// inbound peer): a LAN starting up gets most of its joins in.
    public var joinEvictionBurst = 8.0
    public var joinEvictionsPerSecond = 0.5

    /// false: plain flooding (every message to every neighbour), the baseline.
    public var lazyPush = true
    /// A new neighbour starts eager only while fewer than this many are:
    /// the rest start lazy. Plumtree starts every link eager, so the first
    /// message after a LAN forms floods every link (8.4 copies a node at
    /// 1,000, 9 links each); this bounds that flood to about this many
    /// copies, and IHAVE and GRAFT join the rest to the tree as before.
    public var eagerInitial = 4
    public var recentIDs = 4096
    /// Messages kept to answer GRAFTs.
    public var cachedMessages = 512
    /// Ids announced but not received, waiting for their timer.
    public var missingMax = 1024
    public var announcersPerID = 4
    public var ihaveInterval: Duration = .milliseconds(50)
    /// Most ids in one IHAVE or GRAFT frame (also a decoding cap).
    public var idsPerFrame = 64
    /// The least and most an announced id waits for its pushed copy
    /// (`Broadcast.graftWait`: the copies' lag behind announcements, as TCP's
    /// retransmission timeout).
    public var graftTimeout: Duration = .milliseconds(250)
    public var graftTimeoutMax: Duration = .seconds(2)
    public var graftRetry: Duration = .milliseconds(120)
    /// IHAVE ids and GRAFT ids from one peer: burst and per second.
    public var ihaveBurst = 1024.0
    public var ihavePerSecond = 512.0
    public var graftBurst = 256.0
    public var graftPerSecond = 128.0

    /// Gossiped public messages taken from one author (stored and relayed
    /// on), whoever relays them: a burst, then per second; authors tracked.
    /// Past it a message is dropped unverified, and an author that pushes
    /// its own messages past it is scored down (`AuthorBudgets`).
    public var authorBurst = 1_000.0
    public var authorPerSecond = 100.0
    public var authorsTracked = 1_024

    /// Score below which an active peer is dropped and held off for `cooldown`.
    public var dropScore = -20.0
    /// A peer that delivers nothing first while the median active peer
    /// has delivered this much is replaced at a shuffle (opportunistic).
    public var opportunisticMedian = 5.0

    /// Direct reach above the threshold (DMs to peers outside the view):
    /// links opened on demand, at most this many each way, closed after
    /// `directIdle` without DM traffic either way.
    public var directLinksMax = 8
    public var directIdle: Duration = .seconds(180)
    /// Dials tried (each given `dialTimeout`) before a peer's direct
    /// frames go sealed through the overlay; tried again after `directRetry`.
    public var directDialAttempts = 2
    public var directRetry: Duration = .seconds(60)
    /// Testing: false makes every direct frame to an unlinked peer go
    /// sealed (no dial on demand), as on a LAN where dials fail.
    public var dialsOnDemand = true
    /// Sealed relay: hops a card query, card or envelope may travel; each
    /// peer's relay frames, burst and per second; ids remembered against
    /// repeats; cards kept, and for how long (a peer's card changes with
    /// each run); card queries outstanding.
    public var relayTTL = 8
    public var relayBurst = 32.0
    public var relayPerSecond = 8.0
    public var relaySeenMax = 4_096
    public var cardsMax = 256
    public var cardLifetime: Duration = .seconds(600)
    public var cardQueriesMax = 64
    public var cardQueryRetry: Duration = .seconds(2)

    public init() {}

    /// The active view's target for `known` peers heard of.
    public func activeTarget(known: Int) -> Int {
        var bits = 0
        while (1 << bits) < known + 1 { bits += 1 }
        var ceiling = activeViewMax - targetHeadroom
        if ceiling < activeViewMin { ceiling = min(activeViewMin, activeViewMax) }
        return min(ceiling, max(activeViewMin, bits + activeViewConstant))
    }
}
