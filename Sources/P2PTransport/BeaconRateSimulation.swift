import ChatCore

/// A seeded simulation of `BeaconSchedule` on one broadcast domain: N nodes,
/// all linked to each other (a settled full mesh, every beacon heard by
/// every other node), each starting at a random moment of its first
/// interval. Counts the beacons the LAN carries after a warm-up, for the
/// tests of the rate bound and the bench's figure at sizes real processes
/// cannot reach on one machine. Each node hears in O(1) (a global beacon
/// count minus what it had seen at its last turn), so 10,000 nodes run in
/// well under a second.
public enum BeaconRateSimulation {
    public struct Result: Sendable, Hashable {
        public var nodes: Int
        /// Beacons sent in the measured span, in all.
        public var beacons: Int
        /// Beacons the LAN carried per second in the measured span.
        public var perSecond: Double
        /// The longest any node went without a beacon in the measured span
        /// (from its last before the span, or the span's start).
        public var longestSilence: Duration
        /// The interval each node used (they all know N nodes).
        public var interval: Duration
        /// The most beacons a second in any `window` of the measured span
        /// (tumbling windows): waves of nodes that send together.
        public var peakPerSecond: Double
        public static let window = Duration.seconds(20)
    }

    /// The LAN's steady state: a warm-up past every node's first turns and
    /// its silence limit (the floor's beacons start only then), then a
    /// measured span at least as long as that limit.
    public static func steadyState(nodes: Int, policy: BeaconSchedule.Policy, seed: UInt64) -> Result {
        let limit = BeaconSchedule(policy: policy).maxSilence(knownNodes: nodes)
        let span = max(limit, .seconds(600))
        return run(nodes: nodes, policy: policy, warmUp: span * 1.2, measured: span, seed: seed)
    }

    /// Runs `nodes` nodes for `warmUp + measured` of simulated time.
    public static func run(nodes: Int, policy: BeaconSchedule.Policy, warmUp: Duration, measured: Duration,
                           seed: UInt64) -> Result {
        var random = SplitMix(seed: seed)
        var schedules = Array(repeating: BeaconSchedule(policy: policy), count: nodes)
        var seenAtTurn = Array(repeating: 0, count: nodes)
        var lastSent = Array(repeating: Duration.zero, count: nodes)
        var queue = TurnQueue()
        for node in 0..<nodes { queue.push(policy.base * random.fraction(), node) }
        let start = warmUp
        let end = warmUp + measured
        var sentTotal = 0
        var measuredBeacons = 0
        var longest = Duration.zero
        var windows = Array(repeating: 0, count: Int(measured / Result.window) + 1)
        while let (time, node) = queue.pop().map({ ($0.0, $0.1) }), time < end {
            schedules[node].heardLinked(count: sentTotal - seenAtTurn[node])
            let turn = schedules[node].turn(at: time, knownNodes: nodes, random: random.fraction(),
                                            silenceRandom: random.fraction()) { _ in true }
            if turn.send {
                sentTotal += 1
                if time >= start {
                    measuredBeacons += 1
                    windows[Int((time - start) / Result.window)] += 1
                    longest = max(longest, time - max(lastSent[node], start))
                }
                lastSent[node] = time
            }
            seenAtTurn[node] = sentTotal
            queue.push(turn.next, node)
        }
        for node in 0..<nodes { longest = max(longest, end - max(lastSent[node], start)) }
        let seconds = Double(measured.components.seconds) + Double(measured.components.attoseconds) / 1e18
        // The last window is partial; only whole ones count toward the peak.
        let whole = windows.dropLast().max() ?? 0
        return Result(nodes: nodes, beacons: measuredBeacons, perSecond: Double(measuredBeacons) / seconds,
                      longestSilence: longest, interval: BeaconSchedule(policy: policy).interval(knownNodes: nodes),
                      peakPerSecond: Double(whole) / (Result.window / .seconds(1)))
    }

    /// SplitMix64: a small seeded generator, enough for jitter (not for keys).
    struct SplitMix {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func fraction() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    /// A binary min-heap of (time, node).
    struct TurnQueue {
        private var items: [(time: Duration, node: Int)] = []

        mutating func push(_ time: Duration, _ node: Int) {
            items.append((time, node))
            var child = items.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard items[child].time < items[parent].time else { break }
                items.swapAt(child, parent)
                child = parent
            }
        }

        mutating func pop() -> (Duration, Int)? {
            guard !items.isEmpty else { return nil }
            items.swapAt(0, items.count - 1)
            let top = items.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count, items[left].time < items[smallest].time { smallest = left }
                if right < items.count, items[right].time < items[smallest].time { smallest = right }
                guard smallest != parent else { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
            return (top.time, top.node)
        }
    }
}
