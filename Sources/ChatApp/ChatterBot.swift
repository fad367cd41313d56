import ChatCore
import ChatNode

/// `lanchat bot chatter --rate N [--count N]`: steady automatic public
/// traffic for tests and demos.
public actor ChatterBot: FrontEnd {
    private let node: ChatNode
    private let rate: Double
    private let count: Int?
    private let logger: ChatLogger
    private let clock: any ChatClock
    private let quit: @Sendable () -> Void

    /// - Parameter quit: called when `count` messages have gone out.
    public init(node: ChatNode, rate: Double, count: Int?, logger: ChatLogger, clock: any ChatClock = SystemClock(),
                quit: @escaping @Sendable () -> Void) {
        self.node = node
        self.rate = rate
        self.count = count
        self.logger = logger
        self.clock = clock
        self.quit = quit
    }

    public nonisolated var readsInput: Bool { false }

    public func started(port: Int) async {
        let number = await node.identity.number
        logger.notice("chatter bot up on TCP port \(port), node \(number), \(rate) messages/s")
    }

    public func handle(_ event: NodeEvent) async {
        guard case .peerJoined = event else { return }
        sawPeer = true
        firstPeer?.resume()
        firstPeer = nil
    }

    private var sawPeer = false
    private var firstPeer: CheckedContinuation<Void, Never>?

    /// Talking to nobody is pointless for a traffic generator: wait until
    /// the first peer links up.
    private func waitForFirstPeer() async {
        guard await node.peers().isEmpty, !sawPeer else { return }
        logger.info("chatter bot waiting for a peer")
        // No suspension between the check above and parking here.
        await withCheckedContinuation { firstPeer = $0 }
    }

    public func background() async {
        await waitForFirstPeer()
        let interval = Duration.seconds(1 / rate)
        var next = clock.uptime()
        var sent = 0
        while !Task.isCancelled, count.map({ sent < $0 }) ?? true {
            sent += 1
            let nickname = await node.identity.nickname
            do {
                try await node.sendPublic("chatter \(sent) from \(nickname)", automatic: true)
            } catch {
                logger.warning("chatter send failed: \(error)")
            }
            // Pace against the schedule, not the previous send, so the rate holds.
            next += interval
            try? await clock.sleep(until: next)
        }
        if count != nil { quit() }
    }
}
