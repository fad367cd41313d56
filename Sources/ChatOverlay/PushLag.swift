/// How far a pushed copy lags behind its first announcement: a smoothed
/// mean and mean deviation, as TCP smooths round trips (RFC 6298), and
/// from them how long an announced id waits before it is grafted
/// (`Broadcast`).
struct PushLag: Sendable {
    /// nil: no sample yet.
    private(set) var mean: Duration?
    private var deviation: Duration = .zero

    /// The wait, as TCP's retransmission timeout (mean lag plus four mean
    /// deviations) within `floor...ceiling`: the floor on a LAN whose
    /// copies come at once, up to the ceiling where they lag (1,000 nodes
    /// on one host: copies came up to a second after an IHAVE, and a graft
    /// at 250 ms made 0.3 grafts a node a message, each a GRAFT, its
    /// answer, two duplicates and two PRUNEs). A tree cut by a crash is
    /// still repaired within it.
    func graftWait(floor: Duration, ceiling: Duration) -> Duration {
        guard let mean else { return floor }
        return min(ceiling, max(floor, mean + deviation * 4))
    }

    mutating func note(_ lag: Duration) {
        let sample = max(.zero, lag)
        guard let mean else {
            self.mean = sample
            deviation = sample / 2
            return
        }
        let gap = sample > mean ? sample - mean : mean - sample
        deviation = deviation + (gap - deviation) / 4
        self.mean = mean + (sample - mean) / 8
    }
}
