import ChatCore
import Foundation

/// A seeded simulation of discovery when many nodes start together on one
/// broadcast domain (issue 29: 1,000 processes on one host never formed),
/// driving the real `BeaconSchedule` and `NewcomerAnswers` of every node:
/// start bursts, periodic and newcomer turns, answers to newcomers. Counts
/// the broadcasts the LAN carries, by kind, and how soon each newcomer
/// heard its first peers; also one newcomer joining a settled LAN.
///
/// What it leaves out, on purpose (the rules' bound is the question, not
/// the overlay's):
/// - every broadcast is heard by every running node `latency` later, none lost;
/// - a node knows every node running (`knownNodes`; a real newcomer learns
///   them over seconds), and links are bounded once that passes `threshold`;
/// - a newcomer has a link `dialDelay` after hearing a node, up to
///   `linkTarget` (a node past its start has `linkTarget`);
/// - below the threshold only nodes with a higher number answer a newcomer
///   (the dial rule); above it any node may.
///
/// Cost: a first beacon asks every running node below the threshold, and
/// about `NewcomerAnswers.Policy.answerers` above it (drawn by geometric
/// skips, so 10,000 nodes run in seconds); every other broadcast costs the
/// nodes whose answers wait.
public enum MassStartSimulation {
    public struct Setup: Sendable {
        public var schedule = BeaconSchedule.Policy(base: .seconds(2))
        public var answers = NewcomerAnswers.Policy()
        public var latency: Duration = .milliseconds(5)
        public var dialDelay: Duration = .milliseconds(50)
        public var linkTarget = 8
        public var threshold = 48
        /// At most one answer broadcast per node this often (`P2PConfiguration.answerBeaconGap`).
        public var answerGap: Duration = .milliseconds(250)
        public var burst = 3
        public var burstGap: Duration = .milliseconds(100)

        public init() {}

        /// The rules before session 16: everyone asked answers, every newcomer turn sends.
        public static var baseline: Setup {
            var setup = Setup()
            setup.answers.answerers = 0
            setup.schedule.newcomerLinks = 0
            return setup
        }
    }

    public struct Result: Sendable, Hashable {
        public var nodes: Int
        public var burstBeacons = 0
        public var turnBeacons = 0
        public var answers = 0
        /// The most broadcasts in any one second.
        public var peakPerSecond = 0
        /// Broadcasts from the first start to the end, a second.
        public var meanPerSecond = 0.0
        /// Seconds from a newcomer's start to the first / the `newcomerLinks`-th
        /// node it heard: the 99th percentile and the worst (infinity: never).
        public var firstPeerP99 = 0.0
        public var firstPeerMax = 0.0
        public var enoughPeersP99 = 0.0
        public var enoughPeersMax = 0.0

        public var broadcasts: Int { burstBeacons + turnBeacons + answers }
        /// Broadcasts per node started.
        public var perNode: Double { Double(broadcasts) / Double(max(nodes, 1)) }
    }

    /// `nodes` nodes started `launchRate` a second, run until `duration`
    /// after the first start.
    public static func massStart(nodes: Int, launchRate: Double, duration: Duration, setup: Setup = Setup(),
                                 seed: UInt64) -> Result {
        let starts = (0..<nodes).map { Duration.seconds(Double($0) / launchRate) }
        var world = World(setup: setup, seed: seed, starts: starts, settled: 0)
        return world.run(until: duration, measuredFrom: .zero, newcomersFrom: 0)
    }

    /// A LAN of `nodes` settled nodes (past their first turns), then one
    /// newcomer at `joinAt`, run for `window` more; the figures are the
    /// newcomer's and the LAN's broadcasts over that window.
    public static func join(nodes: Int, joinAt: Duration = .seconds(60), window: Duration = .seconds(5),
                            setup: Setup = Setup(), seed: UInt64) -> Result {
        var starts = Array(repeating: Duration.zero, count: nodes)
        starts.append(joinAt)
        var world = World(setup: setup, seed: seed, starts: starts, settled: nodes)
        return world.run(until: joinAt + window, measuredFrom: joinAt, newcomersFrom: nodes)
    }

    private enum Event: Int {
        case start, burst, turn, answerDue, deferredAnswer, delivery
    }

    private struct World {
        let setup: Setup
        var random: BeaconRateSimulation.SplitMix
        let starts: [Duration]
        let settled: Int
        var numbers: [NodeNumber] = []
        var schedules: [BeaconSchedule]
        var answers: [NewcomerAnswers]
        var burstLeft: [Int]
        var seenAtTurn: [Int]
        var lastAnswer: [Duration?]
        var answerQueued: [Duration?]
        var deferred: [Bool]
        /// Times a node heard its first peers (up to `newcomerLinks`, at least 1).
        var heardAt: [[Duration]]
        var running = 0
        var waitingNodes: Set<Int> = []
        var newcomers: Set<Int> = []
        var senders: [Int] = []
        var firsts: [Bool] = []
        var queue = BeaconRateSimulation.TurnQueue()
        var result: Result
        var bins: [Int: Int] = [:]
        var measuredFrom = Duration.zero
        let wanted: Int

        init(setup: Setup, seed: UInt64, starts: [Duration], settled: Int) {
            self.setup = setup
            self.random = .init(seed: seed)
            self.starts = starts
            self.settled = settled
            let count = starts.count
            schedules = Array(repeating: BeaconSchedule(policy: setup.schedule), count: count)
            answers = Array(repeating: NewcomerAnswers(policy: setup.answers), count: count)
            burstLeft = Array(repeating: setup.burst, count: count)
            seenAtTurn = Array(repeating: 0, count: count)
            lastAnswer = Array(repeating: nil, count: count)
            answerQueued = Array(repeating: nil, count: count)
            deferred = Array(repeating: false, count: count)
            heardAt = Array(repeating: [], count: count)
            result = Result(nodes: count - settled)
            wanted = max(1, setup.schedule.newcomerLinks)
            for _ in 0..<count { numbers.append(NodeNumber(rawValue: random.next() % ((1 << 53) - 1) + 1)!) }
        }

        mutating func push(_ time: Duration, _ index: Int, _ event: Event) {
            queue.push(time, index * 8 + event.rawValue)
        }

        mutating func run(until end: Duration, measuredFrom: Duration, newcomersFrom: Int) -> Result {
            self.measuredFrom = measuredFrom
            for node in starts.indices { push(starts[node], node, .start) }
            while let next = queue.pop(), next.0 < end {
                let (time, code) = next
                let index = code / 8
                switch Event(rawValue: code % 8)! {
                case .start: start(index, at: time)
                case .burst: burstBeacon(index, at: time)
                case .turn: turn(index, at: time)
                case .answerDue: answerDue(index, at: time)
                case .deferredAnswer:
                    deferred[index] = false
                    answerBroadcast(index, at: time)
                case .delivery: deliver(index, at: time)
                }
            }
            let span = max(seconds(end - measuredFrom), 1)
            result.meanPerSecond = Double(result.broadcasts) / span
            result.peakPerSecond = bins.values.max() ?? 0
            func delays(_ rank: Int) -> [Double] {
                (newcomersFrom..<starts.count).map { node in
                    heardAt[node].count > rank ? seconds(heardAt[node][rank] - starts[node]) : .infinity
                }.sorted()
            }
            let first = delays(0), enough = delays(wanted - 1)
            result.firstPeerP99 = first[min(first.count - 1, first.count * 99 / 100)]
            result.firstPeerMax = first.last ?? 0
            result.enoughPeersP99 = enough[min(enough.count - 1, enough.count * 99 / 100)]
            result.enoughPeersMax = enough.last ?? 0
            return result
        }

        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        /// Links bounded: the LAN is past the overlay's threshold.
        var bounded: Bool { running > setup.threshold }

        /// Links a node has at `now`: a newcomer's grow with the nodes it heard.
        func links(_ node: Int, at now: Duration) -> Int {
            guard node >= settled else { return setup.linkTarget }
            let heard = heardAt[node].filter { $0 + setup.dialDelay <= now }.count
            return heard >= wanted ? setup.linkTarget : heard
        }

        mutating func start(_ node: Int, at now: Duration) {
            running += 1
            if node < settled {
                // Past its first turns, its last beacon somewhen in the last interval.
                let interval = schedules[node].interval(knownNodes: settled)
                for _ in 0..<setup.schedule.newcomerTurns {
                    _ = schedules[node].turn(at: now, knownNodes: settled, random: 0.5) { _ in true }
                }
                schedules[node].sent(at: now - interval * random.fraction())
                heardAt[node] = Array(repeating: now, count: wanted)
                push(now + interval * random.fraction(), node, .turn)
                return
            }
            newcomers.insert(node)
            burstBeacon(node, at: now)
        }

        mutating func burstBeacon(_ node: Int, at now: Duration) {
            broadcast(from: node, at: now, first: burstLeft[node] == setup.burst)
            result.burstBeacons += now >= measuredFrom ? 1 : 0
            schedules[node].sent(at: now)
            burstLeft[node] -= 1
            if burstLeft[node] > 0 {
                push(now + setup.burstGap, node, .burst)
            } else {
                let interval = schedules[node].interval(knownNodes: running)
                push(now + interval * (0.8 + 0.4 * random.fraction()), node, .turn)
            }
        }

        mutating func turn(_ node: Int, at now: Duration) {
            schedules[node].heardLinked(count: senders.count - seenAtTurn[node])
            seenAtTurn[node] = senders.count
            let turn = schedules[node].turn(at: now, knownNodes: running, boundedLinks: bounded,
                                            links: links(node, at: now), random: random.fraction(),
                                            silenceRandom: random.fraction()) { _ in true }
            if turn.send {
                broadcast(from: node, at: now, first: false)
                result.turnBeacons += now >= measuredFrom ? 1 : 0
            }
            push(turn.next, node, .turn)
        }

        mutating func answerDue(_ node: Int, at now: Duration) {
            answerQueued[node] = nil
            if answers[node].due(at: now).broadcast { answerOrDefer(node, at: now) }
            scheduleAnswer(node)
        }

        /// Answers now, or once the node's answer gap has passed (one
        /// deferred answer at a time).
        mutating func answerOrDefer(_ node: Int, at now: Duration) {
            guard let last = lastAnswer[node], now - last < setup.answerGap else {
                answerBroadcast(node, at: now)
                return
            }
            guard !deferred[node] else { return }
            deferred[node] = true
            push(last + setup.answerGap, node, .deferredAnswer)
        }

        mutating func answerBroadcast(_ node: Int, at now: Duration) {
            lastAnswer[node] = now
            broadcast(from: node, at: now, first: false)
            result.answers += now >= measuredFrom ? 1 : 0
            schedules[node].sent(at: now)
        }

        mutating func scheduleAnswer(_ node: Int) {
            guard let due = answers[node].nextDue else {
                waitingNodes.remove(node)
                return
            }
            waitingNodes.insert(node)
            if answerQueued[node].map({ due < $0 }) ?? true {
                answerQueued[node] = due
                push(due, node, .answerDue)
            }
        }

        mutating func broadcast(from node: Int, at now: Duration, first: Bool) {
            answers[node].sentBeacon()
            senders.append(node)
            firsts.append(first)
            if now >= measuredFrom { bins[Int((now - measuredFrom).components.seconds), default: 0] += 1 }
            push(now + setup.latency, senders.count - 1, .delivery)
        }

        mutating func deliver(_ index: Int, at now: Duration) {
            let sender = senders[index]
            for node in newcomers where node != sender {
                heardAt[node].append(now)
                if heardAt[node].count >= wanted { newcomers.remove(node) }
            }
            let linkedShare = min(1, Double(setup.linkTarget) / Double(max(running, 1)))
            for node in waitingNodes where node != sender {
                if bounded, setup.answers.answerers > 0 {
                    answers[node].heardBeacon(from: numbers[sender])
                } else if !bounded || random.fraction() < linkedShare {
                    answers[node].heardLinkedBeacon()
                }
            }
            guard firsts[index] else { return }
            // A newcomer's first beacon: the nodes the dial rule asks to answer.
            let askedBounded = bounded && setup.answers.answerers > 0
            let share = askedBounded ? answers[0].share(knownNodes: running) : 1
            var candidate = -1
            while true {
                candidate += askedBounded ? 1 + geometricSkip(share) : 1
                guard candidate < running - 1 else { break }
                let node = candidate < sender ? candidate : candidate + 1
                // Below the threshold the dial rule asks only the higher numbers; above it, anyone.
                guard node < starts.count, starts[node] <= now, askedBounded || numbers[node] > numbers[sender] else { continue }
                // Within the share, as the node's own draw would be.
                let draw = askedBounded ? random.fraction() * share : random.fraction()
                switch answers[node].request(for: numbers[sender], at: now, knownNodes: running, boundedLinks: bounded, random: draw) {
                case .now: answerOrDefer(node, at: now)
                case .later: scheduleAnswer(node)
                case .skipped, .dial: break
                }
            }
        }

        /// Nodes passed over before the next one drawn with probability `share`.
        mutating func geometricSkip(_ share: Double) -> Int {
            guard share < 1 else { return 0 }
            let u = max(random.fraction(), 1e-12)
            return Int((log(u) / log(1 - share)).rounded(.down))
        }
    }
}
