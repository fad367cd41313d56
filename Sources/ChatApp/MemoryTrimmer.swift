import ChatCore
import ChatNode

/// Gives free heap memory back to the system after a burst of traffic
/// (`MemoryTrimPolicy`), checking the node's counters every `interval`
/// of the injected clock. A process-wide act, so the app does it, not the
/// node library.
enum MemoryTrimmer {
    static let interval = Duration.seconds(5)

    /// Runs until the task is cancelled.
    static func run(node: ChatNode, clock: any ChatClock, logger: ChatLogger) async {
        await run(clock: clock, logger: logger, stored: { await node.statistics().stored })
    }

    /// The loop itself: `stored` reads the node's stored-message counter,
    /// `release` gives the memory back (tests pass their own).
    static func run(
        clock: any ChatClock, logger: ChatLogger, policy: MemoryTrimPolicy = MemoryTrimPolicy(),
        stored: @Sendable () async -> Int, release: @Sendable () -> Bool = { releaseFreeMemory() }
    ) async {
        var policy = policy
        while !Task.isCancelled {
            try? await clock.sleep(for: interval)
            guard !Task.isCancelled else { return }
            if policy.observe(stored: await stored()), release() {
                logger.debug("a burst of traffic ended: free heap memory given back to the system")
            }
        }
    }
}
