import ChatCore

/// One link's life from connect to close, as a pure value: its phase, the
/// times that matter, and what is due at a given moment. It reads no clock
/// and touches no socket: the service tells it what happened and when
/// (`connected`, `received`, ...), asks `decision(at:)` on every tick, and
/// carries the decision out; `nextDeadline` says when the next tick is
/// needed. Tests drive it on a manual clock.
///
///     connecting ──connected──> handshaking ──establish──> established ──retire──> retiring
///                                    └──hold──> held ──establish──┘
///
/// Any phase may end in a close; a closed link is dropped, not a phase.
struct LinkLifecycle: Sendable, Hashable {
    enum Phase: Sendable, Hashable {
        /// Outbound, the non-blocking connect has not finished.
        case connecting
        /// The Noise handshake is under way; a dialler stays here after its
        /// last message until the acceptor's first record says it accepted.
        case handshaking
        /// Inbound, verified, from a new instance of a number whose link may
        /// still be alive; accepted once a probe of the old link decides.
        case held
        /// Accepted on both ends; records flow.
        case established
        /// Replaced by a newer link to the same peer: it sends nothing new,
        /// finishes what it had sealed, and is still read until the peer
        /// closes it, so no frame already on the wire is lost.
        case retiring
    }

    /// What the link needs now.
    enum Decision: Sendable, Hashable {
        /// Close: not established, and no handshake message for the
        /// handshake timeout (or not established within
        /// `handshakeCapFactor` times it of opening, however it progresses).
        case handshakeTimedOut
        /// Close: nothing received for the dead-peer timeout.
        case peerSilent
        /// Close: queued output made no progress for the write timeout.
        case writeStalled
        /// Close as restarted: the probe ping got no pong in time.
        case probeUnanswered
        /// Send a ping: nothing sent for the keepalive interval (the
        /// acceptor: `acceptorKeepaliveFactor` times it).
        case keepalive
        /// Close: a retiring link's peer did not close it within the
        /// handshake timeout.
        case retirementOver
    }

    struct Timeouts: Sendable, Hashable {
        var handshake: Duration
        var deadPeer: Duration
        var write: Duration
        var keepalive: Duration
        /// The longest this end stays silent, whatever the intervals say
        /// (nil: no such bound): a stretched link's peer may not have
        /// stretched its own dead-peer timeout.
        var maxQuiet: Duration? = nil
        /// The keepalive interval of a dialler whose last ping was quiet
        /// (PROTOCOL.md 5.1, capability `quietLinks`), and how long either
        /// end waits for a sign of life after a quiet ping (nil: no quiet
        /// pings on this link).
        var quietKeepalive: Duration? = nil
        var quietDeadPeer: Duration? = nil
        /// This end dialled the link and may ping it quietly: both ends
        /// speak `quietLinks` and this end runs the link stretched.
        var pingsQuietly = false

        /// Keepalives `factor` times as far apart and a dead peer `factor`
        /// times as late, but never silent past two thirds of the
        /// unstretched dead-peer timeout: a peer that did not stretch its
        /// timeouts still hears from this end in time.
        func stretched(by factor: Double) -> Timeouts {
            let quiet = deadPeer * (2.0 / 3.0)
            return Timeouts(handshake: handshake, deadPeer: deadPeer * factor, write: write,
                            keepalive: max(keepalive, min(keepalive * factor, quiet)), maxQuiet: max(keepalive, quiet))
        }
    }

    /// A ping sent to learn whether the link is alive, and its deadline.
    struct Probe: Sendable, Hashable {
        let ping: MessageID
        let deadline: Duration
    }

    /// However a handshake progresses, it ends within this many handshake
    /// timeouts of opening (a peer has only two messages to send anyway).
    static let handshakeCapFactor = 2

    /// The acceptor pings only after this many keepalive intervals with
    /// nothing sent (at most half the dead-peer timeout). The dialler's
    /// pings and their pongs then keep a quiet link alive both ways, 2
    /// frames an interval rather than 4 (both ends pinged in the same tick
    /// and each ping was answered), and the acceptor still pings in time
    /// if the dialler goes quiet.
    static let acceptorKeepaliveFactor = 1.5

    private(set) var phase: Phase
    /// Who dialled: the dialler keeps a quiet link alive.
    let direction: LinkDirection
    let openedAt: Duration
    /// Last handshake message received (or the opening): a handshake that
    /// moves is slow, not dead, when a busy CPU delays every step.
    private(set) var handshakeProgressAt: Duration
    private(set) var lastReceivedAt: Duration
    private(set) var lastSentAt: Duration
    /// Last time queued output made progress (or became non-empty).
    private(set) var writeProgressAt: Duration
    private(set) var probe: Probe?
    private(set) var retiredAt: Duration?
    /// The dialler's last ping on the link (sent here if this end dialled,
    /// received if it accepted) was quiet: its next comes within the quiet
    /// keepalive, not the ordinary one.
    private(set) var lastPingQuiet = false
    /// When the last quiet ping went by (never cleared: the silence it
    /// allowed is allowed to its end even once pings are ordinary again).
    private(set) var lastQuietPingAt: Duration?

    init(phase: Phase, openedAt: Duration, direction: LinkDirection = .outbound) {
        precondition(phase == .connecting || phase == .handshaking, "a link starts connecting or handshaking")
        self.phase = phase
        self.direction = direction
        self.openedAt = openedAt
        handshakeProgressAt = openedAt
        lastReceivedAt = openedAt
        lastSentAt = openedAt
        writeProgressAt = openedAt
    }

    /// The connect finished; the handshake starts.
    mutating func connected() {
        if phase == .connecting { phase = .handshaking }
    }

    /// A verified peer waits for a probe of its number's old link.
    mutating func hold() {
        if phase == .handshaking { phase = .held }
    }

    /// Accepted: frames flow. Only from the handshake or a hold.
    mutating func establish() {
        if phase == .handshaking || phase == .held { phase = .established }
    }

    /// Replaced: only from established.
    mutating func retire(at now: Duration) {
        guard phase == .established else { return }
        phase = .retiring
        retiredAt = now
        probe = nil
    }

    /// Connecting, handshaking or held: not yet carrying frames.
    var isUnfinished: Bool { phase != .established && phase != .retiring }

    /// Whether a deadline of this link is a fraction of a second away at
    /// most (a handshake, a probe, a retirement): the service then looks at
    /// its timers every `tickInterval`; otherwise it sleeps until
    /// `nextDeadline`.
    var hasShortDeadline: Bool { phase != .established || probe != nil }

    mutating func received(at now: Duration) { lastReceivedAt = now }

    /// A complete handshake message arrived (bytes alone do not count, so
    /// a trickle cannot keep a handshake open).
    mutating func handshakeProgressed(at now: Duration) {
        if isUnfinished { handshakeProgressAt = now }
    }

    /// This side is not reading the link (its frame budget is spent, or the
    /// node asked for backpressure): silence meanwhile is ours, not the
    /// peer's, so it does not count toward the dead-peer timeout.
    mutating func notReading(at now: Duration) { lastReceivedAt = now }

    mutating func sent(at now: Duration) { lastSentAt = now }

    /// The dialler's ping, quiet or not, went by (sent or received).
    mutating func dialerPinged(at now: Duration, quiet: Bool) {
        lastPingQuiet = quiet
        if quiet { lastQuietPingAt = now }
    }

    /// When the peer counts as dead if nothing arrives. While the dialler's
    /// last ping was quiet, the quiet timeout after the last frame, at both
    /// ends: the dialler's next frame of any kind comes within the quiet
    /// keepalive of its last (its other frames put its ping off), and the
    /// acceptor answers each ping. After an ordinary ping, the ordinary
    /// timeout, but not before the quiet one after the last quiet ping.
    func silentAfter(_ timeouts: Timeouts) -> Duration {
        let ordinary = lastReceivedAt + timeouts.deadPeer
        guard let lastQuietPingAt, let quiet = timeouts.quietDeadPeer else { return ordinary }
        if lastPingQuiet { return max(ordinary, lastReceivedAt + quiet) }
        return max(ordinary, lastQuietPingAt + quiet)
    }

    /// Output was queued on an idle link, or the socket took some.
    mutating func wroteProgress(at now: Duration) { writeProgressAt = now }

    /// Starts a probe unless one is running; false if one is.
    mutating func startProbe(ping: MessageID, deadline: Duration) -> Bool {
        guard probe == nil else { return false }
        probe = Probe(ping: ping, deadline: deadline)
        return true
    }

    /// A pong arrived: true if it answers the probe (which then ends).
    mutating func pong(refId: MessageID?) -> Bool {
        guard let probe, refId == probe.ping else { return false }
        self.probe = nil
        return true
    }

    /// The dialler's is the configured one; the acceptor's is longer, but
    /// never past half the dead-peer timeout. Quiet (`lastPingQuiet`): the dialler's is the quiet one while it
    /// may still ping quietly, and the acceptor's 1.5 times that, but never
    /// past half the quiet dead-peer timeout.
    func keepaliveInterval(_ timeouts: Timeouts) -> Duration {
        if lastPingQuiet, let quiet = timeouts.quietKeepalive, let dead = timeouts.quietDeadPeer {
            if direction == .outbound, timeouts.pingsQuietly { return quiet }
            if direction == .inbound {
                return max(timeouts.keepalive, min(quiet * Self.acceptorKeepaliveFactor, dead / 2))
            }
        }
        guard direction == .inbound else { return timeouts.keepalive }
        let interval = max(timeouts.keepalive, min(timeouts.keepalive * Self.acceptorKeepaliveFactor, timeouts.deadPeer / 2))
        return timeouts.maxQuiet.map { min(interval, max($0, timeouts.keepalive)) } ?? interval
    }

    /// How much earlier than its interval a dialler's keepalive may go
    /// along with another link's that is due (a fraction of the interval):
    /// the links' pings fall into step within one interval, whatever their
    /// phases (of two groups, one is always at least half an interval
    /// quiet when the other is due), and then one wake-up sends them all
    /// instead of one a link. Only the dialler's: the acceptor's pings
    /// would cross the dialler's (4 frames an interval, not 2).
    static let keepaliveSlack = 0.5

    /// When `decision(at:)` next says something if nothing happens
    /// meanwhile (no frame in or out, no probe): the earliest of the link's
    /// deadlines. A deadline passed strictly (`>` in `decision`) is given
    /// as the first instant past it, so a service that sleeps until then
    /// acts on its first wake-up.
    func nextDeadline(hasQueuedOutput: Bool, timeouts: Timeouts) -> Duration {
        let past = Duration.nanoseconds(1)
        if phase == .retiring, let retiredAt { return retiredAt + timeouts.handshake + past }
        guard phase == .established else {
            return min(handshakeProgressAt + timeouts.handshake, openedAt + timeouts.handshake * Self.handshakeCapFactor) + past
        }
        var next = min(silentAfter(timeouts) + past, lastSentAt + keepaliveInterval(timeouts))
        if hasQueuedOutput { next = min(next, writeProgressAt + timeouts.write + past) }
        if let probe { next = min(next, probe.deadline + past) }
        return next
    }

    /// What is due at `now`, the most urgent first; nil if nothing.
    /// `early`: another link's keepalive is due now, so a dialler's goes
    /// along if it is within `keepaliveSlack` of its interval.
    func decision(at now: Duration, hasQueuedOutput: Bool, timeouts: Timeouts, early: Bool = false) -> Decision? {
        if phase == .retiring, let retiredAt {
            return now - retiredAt > timeouts.handshake ? .retirementOver : nil
        }
        guard phase == .established else {
            let stalled = now - handshakeProgressAt > timeouts.handshake
            let overCap = now - openedAt > timeouts.handshake * Self.handshakeCapFactor
            return stalled || overCap ? .handshakeTimedOut : nil
        }
        if now > silentAfter(timeouts) { return .peerSilent }
        if hasQueuedOutput, now - writeProgressAt > timeouts.write { return .writeStalled }
        if let probe, now > probe.deadline { return .probeUnanswered }
        let keepalive = keepaliveInterval(timeouts)
        let along = early && direction == .outbound
        if now - lastSentAt >= (along ? keepalive * (1 - Self.keepaliveSlack) : keepalive) { return .keepalive }
        return nil
    }
}
