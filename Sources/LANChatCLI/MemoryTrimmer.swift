import ChatCore
import ChatNode

/// Gives free heap memory back to the system after a burst of traffic
/// (`MemoryTrimPolicy`), checking the node's counters every `interval`.
/// A process-wide act, so the app does it, not the node library.
enum MemoryTrimmer {
    static let interval = Duration.seconds(5)

    /// Runs until the task is cancelled.
    static func run(node: ChatNode, logger: ChatLogger) async {
        var policy = MemoryTrimPolicy()
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            if policy.observe(stored: await node.statistics().stored), releaseFreeMemory() {
                logger.debug("a burst of traffic ended: free heap memory given back to the system")
            }
        }
    }
}
