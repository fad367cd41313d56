import ChatCore

/// When a node's next periodic beacon is due and whether it goes out
/// (PROTOCOL.md 2.3), so that the beacons a LAN carries stay about bounded
/// as it grows: at a fixed 2 s, N nodes send N/2 a second and every node
/// wakes for all of them.
///
/// Two rules, from the known answers to this problem:
/// - **The interval grows with the LAN** (SSDP's and mDNS's backoff): `base`
///   while the node knows at most `quietSize` nodes (itself included), then
///   `base × nodes / quietSize`, so the LAN sends about `quietSize / base`
///   a second (10 at the defaults), up to `maxStretch × base` (30 s).
/// - **A redundant beacon is skipped** (Trickle's suppression, RFC 6206
///   4.2, in the spirit of mDNS's known-answer and duplicate suppression,
///   RFC 6762 7.1-7.4): at its turn, a node of a LAN over `quietSize`
///   that heard at least `redundancy` beacons from peers linked to it since
///   its last turn stays silent, unless something says a node may not know
///   it. Then about `redundancy` beacons go out per interval, whatever N.
///
/// A node whose links are bounded (the overlay above its threshold, issue
/// 29) links to a few peers it chooses, not to every node it hears: there
/// a beacon only keeps the node known, so every beacon heard counts toward
/// the redundancy, and unlinked nodes heard do not keep a turn (the
/// overlay dials those it wants itself). Without this every turn of every
/// node sent, N/30 s on the LAN (33 a second at 1,000 nodes, each heard
/// by all).
///
/// What a beacon is still for once everyone is linked: a newcomer is
/// answered or dialled on its own start burst (`P2PService.handleBeacon`),
/// not by these; they find nodes whose burst was lost and halves of a
/// healed partition. So a turn is never skipped while the node is *not
/// settled*: in its first `newcomerTurns` turns, after a link was lost, or
/// while a beacon heard since the last turn came from a node that is still
/// not linked (and there is room for a link). And no node stays silent
/// past `maxSilence`, so everyone is still heard now and then.
///
/// A newcomer of a large LAN stops early (issue 29, a mass start): once it
/// has links to `newcomerLinks` peers, its remaining newcomer turns go
/// only as the rules above say. Those peers heard it (a link is the
/// proof), and the rest of the LAN learns of it from its later beacons
/// and, above the overlay's threshold, from the membership. Without this
/// N nodes starting together each sent their three newcomer turns, each
/// heard by all of them: 3N² wake-ups on top of the start bursts'. A full
/// mesh still hears everyone (a turn that heard an unlinked node is not
/// settled), and a LAN up to `quietSize` skips nothing anyway.
///
/// Pure: times come in as arguments (the transport's clock), randomness as
/// a fraction in 0..<1, so tests drive it on a manual clock.
public struct BeaconSchedule: Sendable, Hashable {
    public struct Policy: Sendable, Hashable {
        /// The interval of a small LAN (`P2PConfiguration.beaconInterval`).
        public var base: Duration
        /// Nodes (this one included) up to which the interval is `base` and
        /// nothing is skipped: a small LAN behaves as with a fixed interval.
        public var quietSize = 20
        /// The interval is at most `base × maxStretch`.
        public var maxStretch = 15
        /// Beacons from linked peers heard since the last turn that make
        /// this turn's beacon redundant (Trickle's k).
        public var redundancy = 20
        /// Each wait is the interval times a factor in `1 ± jitter`.
        public var jitter = 0.2
        /// Turns after start that always send (the start burst aside): a
        /// newcomer whose burst went unheard somewhere is heard again.
        public var newcomerTurns = 3
        /// Links that end a newcomer's turns early (`newcomerTurns`); 0:
        /// never (before session 16; a baseline).
        public var newcomerLinks = 3
        /// No node is silent longer than this many intervals, nor shorter
        /// than `silenceFloor` uncapped intervals (`maxSilence`).
        public var silenceIntervals = 10
        /// The floor of `maxSilence`, in uncapped intervals. At 1,000 nodes
        /// a settled node's turns are all redundant and the floor's
        /// beacons are most of what the LAN carries, each heard by all (on
        /// one host of 1,000, about 0.1 s of CPU in all a beacon, going by
        /// session 24's two idle windows); 8 (was 4) halves them.
        public var silenceFloor = 8
        /// Each silence a node keeps ends at a point drawn in
        /// `maxSilence × (1 - silenceSpread ... 1)` (Trickle's `[I/2, I)`,
        /// RFC 6206 4.2). With the limit alone, nodes that last sent
        /// together (a LAN that formed together) all reached it within one
        /// turn of each other, cycle after cycle: 1,000 nodes on one host
        /// sent 5 beacons a second in those waves and under 1 between them.
        /// 0: the limit alone (before session 25; a baseline).
        public var silenceSpread = 0.5
        /// Numbers of unlinked nodes remembered per turn; more counts as
        /// "not settled" without remembering them.
        public var maxUnlinkedTracked = 64
        /// The LAN's size as a turn takes it falls by at most
        /// `1/sizeFall` of itself a turn (`lanSize`).
        public var sizeFall = 8
        /// Fixed: every turn sends, every `base` (the schedule before
        /// issue 29; a baseline for figures and a switch for tests).
        public var adaptive = true

        public init(base: Duration = .seconds(2)) { self.base = base }
    }

    /// What a turn decided.
    public struct Turn: Sendable, Hashable {
        /// Send the beacon now (false: skipped as redundant).
        public var send: Bool
        /// When the next turn is due.
        public var next: Duration
    }

    public let policy: Policy
    /// Beacons from linked peers heard since the last turn.
    public private(set) var linkedHeard = 0
    /// Beacons from unlinked peers heard since the last turn (counted
    /// toward the redundancy only while links are bounded).
    public private(set) var unlinkedBeacons = 0
    /// Unlinked numbers heard since the last turn (bounded).
    private var unlinkedHeard: Set<NodeNumber> = []
    private var unlinkedOverflow = false
    private var lostLink = false
    /// Turns taken since start.
    public private(set) var turns = 0
    /// Turns skipped as redundant since start.
    public private(set) var skipped = 0
    /// When this node's last beacon of any kind went out.
    public private(set) var lastSentAt: Duration?
    /// The share of `maxSilence` the current silence may last, drawn at
    /// each turn that sends (`Policy.silenceSpread`).
    public private(set) var silenceShare = 1.0

    public init(policy: Policy) {
        self.policy = policy
    }

    /// The mean wait between turns for a node that knows `knownNodes` nodes,
    /// itself included.
    public func interval(knownNodes: Int) -> Duration {
        guard policy.adaptive, knownNodes > policy.quietSize else { return policy.base }
        let stretch = min(Double(knownNodes) / Double(policy.quietSize), Double(policy.maxStretch))
        return policy.base * stretch
    }

    /// The LAN's size for a turn, from `counted` (nodes known alive now,
    /// this one included) and the size the previous turn took: up at once,
    /// down by at most `1/sizeFall` a turn, the count itself on a small
    /// LAN. A node that hears less (its socket's queue overflowed while its
    /// host was saturated, or others stayed silent longer than it expected)
    /// must not take that for a smaller LAN at once: a smaller size
    /// shortens its intervals, silences and announcement timeout, and it
    /// sends more beacons into the overload that made it deaf (issue 29:
    /// on one host of 1,000 nodes, sizes of 180-650 after forming).
    public func lanSize(counted: Int, previous: Int) -> Int {
        guard policy.adaptive, previous > policy.quietSize, counted < previous else { return counted }
        return max(counted, previous - max(1, previous / max(policy.sizeFall, 1)))
    }

    /// The longest a node that knows `knownNodes` nodes goes without a
    /// beacon: `silenceIntervals` intervals, and at least `silenceFloor`
    /// uncapped ones, so the beacons this floor forces stay at any N under
    /// `quietSize / (base × silenceFloor × (1 - silenceSpread / 2))` a
    /// second, a sixth of the LAN's target rate at the defaults.
    public func maxSilence(knownNodes: Int) -> Duration {
        let uncapped = policy.base * (Double(max(knownNodes, 1)) / Double(policy.quietSize))
        return max(interval(knownNodes: knownNodes) * Double(policy.silenceIntervals), uncapped * Double(policy.silenceFloor))
    }

    /// A beacon from a peer linked to this node, from its link's address and
    /// instance: that peer knows us. `count` for a simulation's batch.
    public mutating func heardLinked(count: Int = 1) {
        linkedHeard += count
    }

    /// A beacon from `number`, which has no link to this node: it may not
    /// know us, so the next turn sends unless it is linked by then.
    public mutating func heardUnlinked(_ number: NodeNumber) {
        unlinkedBeacons += 1
        guard !unlinkedOverflow, !unlinkedHeard.contains(number) else { return }
        if unlinkedHeard.count >= policy.maxUnlinkedTracked {
            unlinkedOverflow = true
            unlinkedHeard.removeAll()
        } else {
            unlinkedHeard.insert(number)
        }
    }

    /// A link ended: its peer redials on our beacon, so the next turn sends
    /// (with bounded links, only if few links are left).
    public mutating func linkLost() {
        lostLink = true
    }

    /// This node sent a beacon outside its turns (start burst, answer, name
    /// change).
    public mutating func sent(at now: Duration) {
        lastSentAt = now
    }

    /// Whether a node with `links` links is past its newcomer turns.
    private func newcomerDone(links: Int) -> Bool {
        turns >= policy.newcomerTurns || (policy.newcomerLinks > 0 && links >= policy.newcomerLinks)
    }

    /// The turn due at `now`: send or skip, and when the next is due.
    /// `knownNodes`: nodes this one knows alive, itself included (links and
    /// announcements). `canLinkMore`: under the link cap (an unlinked node
    /// we could not take anyway needs nothing from our beacon). `isLinked`:
    /// whether a number is linked now. `boundedLinks`: the node keeps only
    /// the links it chooses (the overlay above its threshold). `random`: a
    /// fraction in 0..<1. `links`: established links now (`newcomerLinks`).
    /// `silenceRandom`: another fraction, for the next silence's share of
    /// the limit if this turn sends (0: all of it).
    public mutating func turn(at now: Duration, knownNodes: Int, canLinkMore: Bool = true, boundedLinks: Bool = false,
                              links: Int = 0, random: Double, silenceRandom: Double = 0,
                              isLinked: (NodeNumber) -> Bool) -> Turn {
        let interval = interval(knownNodes: knownNodes)
        // With bounded links the overlay repairs a lost link from its
        // passive view (it dials; no peer waits for our beacon), so a loss
        // keeps the turn only when it left this node short of links: at
        // 1,000 nodes on one host, churn made nearly every turn send.
        let lossMatters = lostLink && (!boundedLinks || links < max(policy.newcomerLinks, 1))
        let settled = newcomerDone(links: links) && !lossMatters
            && (boundedLinks || !canLinkMore || (!unlinkedOverflow && unlinkedHeard.allSatisfy(isLinked)))
        let heard = linkedHeard + (boundedLinks ? unlinkedBeacons : 0)
        let redundant = policy.adaptive && knownNodes > policy.quietSize && heard >= policy.redundancy
        // Skipping must not carry the silence past the limit before the next turn.
        let limit = maxSilence(knownNodes: knownNodes) * silenceShare
        let mayStaySilent = lastSentAt.map { now - $0 + interval * (1 + policy.jitter) < limit } ?? false
        let send = !(settled && redundant && mayStaySilent)
        turns += 1
        linkedHeard = 0
        unlinkedBeacons = 0
        unlinkedHeard.removeAll()
        unlinkedOverflow = false
        lostLink = false
        if send {
            lastSentAt = now
            silenceShare = 1 - min(max(policy.silenceSpread, 0), 1) * min(max(silenceRandom, 0), 1)
        } else {
            skipped += 1
        }
        let factor = 1 - policy.jitter + 2 * policy.jitter * min(max(random, 0), 1)
        return Turn(send: send, next: now + interval * factor)
    }
}
