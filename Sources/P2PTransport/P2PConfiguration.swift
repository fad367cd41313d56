import ChatCrypto
import ChatOverlay

/// How a `P2PService` finds peers and keeps its links. Defaults suit a LAN;
/// tests shorten the intervals and always name `broadcastAddresses`.
public struct P2PConfiguration: Sendable {
    /// UDP port for beacons, shared by every node on a host.
    public var discoveryPort: Int = 47_474
    /// TCP port to accept links on; 0 picks an ephemeral one, announced in
    /// the beacon.
    public var listenPort: Int = 0
    /// Where beacons go (dotted IPv4 broadcast addresses). Nil means
    /// `BroadcastScope.defaultAddresses()` (loopback plus LAN interfaces); an
    /// empty list turns broadcast off (static peers only).
    public var broadcastAddresses: [String]? = nil
    /// "host:port" TCP addresses dialled directly and redialled with backoff,
    /// for networks broadcast does not cross (docker bridges, VPNs).
    public var staticPeers: [String] = []
    /// Mean time between beacons; each wait is jittered by ±20% so nodes
    /// started together do not beacon in lockstep.
    public var beaconInterval: Duration = .seconds(2)
    /// The beacon schedule of a large LAN (`BeaconSchedule`): past 20 known
    /// nodes the interval grows with the LAN and redundant beacons are
    /// skipped. False: every `beaconInterval`, whatever the LAN's size
    /// (the schedule before it; a baseline for figures).
    public var adaptiveBeacons = true
    /// On a LAN past 20 known nodes, a broadcast answer to a newcomer waits
    /// 20-120 ms and gives way to others' answers (`NewcomerAnswers`).
    /// False: every answer at once (before it; a baseline for figures).
    public var delayedAnswers = true
    /// The mass-start rules of session 16 (`NewcomerAnswers.Policy.answerers`,
    /// `BeaconSchedule.Policy.newcomerLinks`); false only as the bench's
    /// baseline (`LANCHAT_DISCOVERY_BASELINE`, test-only).
    public var massStartRules = true
    /// Above the overlay's threshold, while nothing with a short deadline is
    /// under way, beacons heard wait up to this long to be handled together
    /// with whatever wakes the node next (`PollLoop.holdLazyReports`): an
    /// idle node at 300 hears ~7 a second, and each hand-off from the poll
    /// thread costs more than the beacon. 500 ms saved a little more CPU
    /// but made 2-4 times the idle link churn at 300 nodes (cause not found;
    /// docs/BENCHMARKS.md). Zero: each at once (before it; a baseline).
    public var discoveryHold: Duration = .milliseconds(150)
    /// Longest wait for the next handshake message (from the connect for
    /// the first); the whole handshake must finish within twice this.
    public var handshakeTimeout: Duration = .seconds(3)
    /// An idle link sends a ping this often.
    public var keepaliveInterval: Duration = .seconds(2)
    /// A link with nothing received for this long is dead; an announcement
    /// with no beacon for this long expires (about three missed beacons).
    public var deadPeerTimeout: Duration = .seconds(6)
    /// A link whose queued output makes no progress for this long is cut.
    public var writeTimeout: Duration = .seconds(5)
    /// A link whose queued output would exceed this is cut: a peer that
    /// stops reading must not cost memory or slow the others.
    public var maxQueuedBytesPerLink: Int = 1 << 20
    /// First delay before redialling a peer; doubles per failure up to
    /// `maxReconnectDelay`, jittered ±20%.
    public var reconnectDelay: Duration = .milliseconds(250)
    public var maxReconnectDelay: Duration = .seconds(15)
    /// Optional features announced in the hello (e.g. "ack", "history").
    public var capabilities: [String] = []
    /// The overlay for large LANs (capability `overlay`, PROTOCOL.md
    /// "Overlay"): announced in the hello; below its full-mesh threshold the
    /// node links to every peer as without it, above it `Membership` picks
    /// the links to peers that announce it and public messages go by
    /// gossip. Nil: no overlay (the capability is not announced).
    public var overlay: OverlayConfig? = nil
    /// Bounds on what peers and addresses may make this node do.
    public var limits = PeerLimits()
    /// This node's Ed25519 identity (its node number derives from it). Nil:
    /// the service makes a fresh one for this run, as `--in-memory` does.
    public var identityKey: IdentityKey? = nil
    /// The private group's secret (`--secret-file`): links use Noise XXpsk0+psk3
    /// with its psk and beacons carry its tag. Nil: no group (plain XX).
    public var groupSecret: GroupSecret? = nil

    public init() {}

    /// Turns the overlay on with its defaults; `fullMeshThreshold` (test
    /// only: `LANCHAT_OVERLAY_THRESHOLD`) moves the threshold, and the
    /// way back to a full mesh with it (three quarters of it).
    public mutating func enableOverlay(fullMeshThreshold: Int? = nil) {
        var config = OverlayConfig()
        if let threshold = fullMeshThreshold {
            config.fullMeshThreshold = max(2, threshold)
            config.fullMeshExit = max(1, config.fullMeshThreshold * 3 / 4)
        }
        overlay = config
    }

    /// How often the service looks at its timers while something with a
    /// short deadline is under way (a handshake, a probe, a throttled link):
    /// a tenth of the shortest interval, between 10 and 50 ms, so those
    /// deadlines are met within ~10%. Otherwise it sleeps until the next
    /// deadline (`WakePlan`).
    var tickInterval: Duration {
        let shortest = min(beaconInterval, keepaliveInterval, handshakeTimeout, deadPeerTimeout, writeTimeout)
        return min(max(shortest / 10, .milliseconds(10)), .milliseconds(50))
    }

    /// How long a link suspected of belonging to a restarted peer (a beacon
    /// with its number but a new instance id) has to answer a ping before it
    /// is declared dead and replaced.
    var restartProbeTimeout: Duration {
        max(min(handshakeTimeout, keepaliveInterval) / 2, .milliseconds(50))
    }

    /// A node with the higher number waits this long for the lower one to
    /// dial before dialling itself (see `LinkArbiter`).
    var fallbackDialDelay: Duration { handshakeTimeout }

    /// The periodic beacons' schedule (`BeaconSchedule`).
    var beaconPolicy: BeaconSchedule.Policy {
        var policy = BeaconSchedule.Policy(base: beaconInterval)
        policy.adaptive = adaptiveBeacons
        if !massStartRules { policy.newcomerLinks = 0 }
        return policy
    }

    /// The answers to newcomers (`NewcomerAnswers`).
    var answerPolicy: NewcomerAnswers.Policy {
        var policy = NewcomerAnswers.Policy()
        policy.quietSize = beaconPolicy.quietSize
        policy.delays = delayedAnswers
        if !massStartRules { policy.answerers = 0 }
        return policy
    }

    /// Least time between the extra beacons sent when a new peer is heard.
    var answerBeaconGap: Duration { max(beaconInterval / 8, .milliseconds(20)) }

    func validate() throws(TransportError) {
        guard (1...65535).contains(discoveryPort) else { throw .invalidConfiguration("discoveryPort \(discoveryPort)") }
        guard (0...65535).contains(listenPort) else { throw .invalidConfiguration("listenPort \(listenPort)") }
        for (name, value) in [("beaconInterval", beaconInterval), ("handshakeTimeout", handshakeTimeout),
                              ("keepaliveInterval", keepaliveInterval), ("deadPeerTimeout", deadPeerTimeout),
                              ("writeTimeout", writeTimeout), ("reconnectDelay", reconnectDelay)] where value <= .zero {
            throw .invalidConfiguration("\(name) must be positive")
        }
        guard maxQueuedBytesPerLink >= 64 * 1024 + 1 else {
            throw .invalidConfiguration("maxQueuedBytesPerLink must hold at least one 64 KiB frame")
        }
        try limits.validate()
    }
}
