/// What a simulation measured. Equal reports from equal seeds: a run replays exactly.
public struct SimulationReport: Sendable, Hashable, CustomStringConvertible {
    /// Nodes alive at the end.
    public var nodes = 0
    public var messages = 0
    /// Deliveries / expected deliveries (every message to every node alive
    /// when it was sent and still alive now, its author aside).
    public var reach = 0.0
    /// Messages that reached every such node.
    public var messagesFullyReached = 0
    public var hopsP50 = 0
    public var hopsP99 = 0
    public var delayP50Millis = 0.0
    public var delayP99Millis = 0.0
    /// Whole copies of a message received per node per message (duplicates included).
    public var copiesPerDelivery = 0.0
    /// Active view sizes (links kept by the overlay) over nodes alive now.
    public var linksMean = 0.0
    public var linksMin = 0
    public var linksMax = 0
    public var passiveMean = 0.0
    /// Overlay frames sent, all kinds, during the run.
    public var framesSent = 0
    /// IHAVE frames sent and GRAFT ids asked for.
    public var ihaveFrames = 0
    public var graftedIDs = 0

    public init() {}

    public var description: String {
        String(format: "%d nodes, %d messages: reach %.4f (%d complete), hops p50 %d p99 %d, delay p50 %.1f ms p99 %.1f ms, "
               + "copies %.3f, links %.2f (%d-%d), passive %.1f, frames %d (IHAVE %d, grafted %d)",
               nodes, messages, reach, messagesFullyReached, hopsP50, hopsP99, delayP50Millis, delayP99Millis,
               copiesPerDelivery, linksMean, linksMin, linksMax, passiveMean, framesSent, ihaveFrames, graftedIDs)
    }
}
