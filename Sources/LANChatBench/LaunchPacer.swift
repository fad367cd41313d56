import Foundation

/// Holds the next launch of a swarm while the nodes already running use
/// more than `cores` (their CPU time from /proc, measured every half
/// second): a launch into saturated cores is heard by every node, and its
/// handshakes then time out. Waits at most 2 s per launch, so a swarm
/// that never calms down is still launched (the figure says how long it
/// waited). Off by default (`ProcessSwarm.launchCores`).
struct LaunchPacer {
    let cores: Double
    /// Seconds spent waiting, in all.
    private(set) var waited = 0.0
    private var lastCPU = 0.0
    private var lastAt = ContinuousClock.now
    private var busy = 0.0

    init(cores: Double) { self.cores = cores }

    /// Returns once there is room (or the wait's cap passed): the instant to launch at.
    mutating func waitForRoom(_ nodes: [GossipChild]) async throws -> ContinuousClock.Instant {
        guard cores > 0, !nodes.isEmpty else { return ContinuousClock.now }
        let started = ContinuousClock.now
        while true {
            let now = ContinuousClock.now
            let elapsed = Measure.seconds(now - lastAt)
            if elapsed >= 0.5 {
                let cpu = nodes.reduce(0) { $0 + (ProcessStats.cpuSeconds($1.pid) ?? 0) }
                busy = max(0, cpu - lastCPU) / elapsed
                (lastCPU, lastAt) = (cpu, now)
            }
            if busy <= cores || Measure.seconds(now - started) > 2 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let end = ContinuousClock.now
        waited += Measure.seconds(end - started)
        return end
    }
}
