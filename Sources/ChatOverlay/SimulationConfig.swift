/// The world an `OverlaySimulation` runs in: one seed, link latencies,
/// loss, how fast failures are noticed, and how much of the LAN's
/// discovery each node hears.
public struct SimulationConfig: Sendable, Hashable {
    public var seed: UInt64 = 1
    public var overlay = OverlayConfig()
    /// Each link's one-way latency is fixed for the run (TCP keeps order),
    /// drawn from this range (a LAN: a fraction of a millisecond to two).
    public var minLatency: Duration = .microseconds(200)
    public var maxLatency: Duration = .milliseconds(2)
    /// Fraction of overlay frames lost on the way (a relay that drops, not
    /// TCP: TCP on a LAN delays rather than loses).
    public var loss = 0.0
    /// A crashed or cut-off peer's links are seen down after this (the
    /// keepalive's dead-peer timeout); a clean leave after one latency.
    public var crashDetection: Duration = .seconds(1)
    /// A dial to a dead or unreachable peer fails after this.
    public var dialFailure: Duration = .milliseconds(200)
    /// Beacons a node hears when it starts (at most this many peers; on a
    /// real LAN it hears them all, but above the full-mesh threshold only
    /// the threshold matters), then `beaconsPerInterval` random peers every
    /// `beaconInterval` (a discovery whose rate is bounded).
    public var heardAtJoin = 64
    public var beaconInterval: Duration = .seconds(2)
    public var beaconsPerInterval = 4

    public init(seed: UInt64 = 1) { self.seed = seed }
}
