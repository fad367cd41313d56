/// What a `SimulatedNetwork` does to frames, drawn per frame from the
/// network's seed. Latencies are whole milliseconds of the manual clock.
public struct SimulatedFaults: Sendable {
    /// One-way delay of a frame (and of a link coming up).
    public var latency: ClosedRange<Int>
    /// Probability a frame vanishes and the link stays up (what TCP never
    /// does: only catch-up at the next link-up can bring it back).
    public var loss: Double
    /// Probability a frame arrives twice.
    public var duplicate: Double
    /// Probability a frame may overtake frames sent before it on its link
    /// (otherwise a link keeps its order, as TCP does).
    public var reorder: Double
    /// Probability a frame breaks its link instead (what loss looks like on
    /// TCP): the frame and everything in flight on the link are lost, both
    /// ends see the peer leave, and the link comes back after `reconnect`.
    public var reset: Double
    /// Time until a broken link is up again.
    public var reconnect: ClosedRange<Int>

    public init(latency: ClosedRange<Int> = 1...20, loss: Double = 0, duplicate: Double = 0, reorder: Double = 0,
                reset: Double = 0, reconnect: ClosedRange<Int> = 50...500) {
        self.latency = latency
        self.loss = loss
        self.duplicate = duplicate
        self.reorder = reorder
        self.reset = reset
        self.reconnect = reconnect
    }

    /// A clean network: delay only.
    public static let none = SimulatedFaults()
}
