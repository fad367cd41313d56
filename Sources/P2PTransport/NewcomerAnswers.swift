import ChatCore

/// When this node's broadcast answer to a newcomer goes out, and whether it
/// goes out at all (PROTOCOL.md 2.3), so that a newcomer on a large LAN
/// draws a few LAN-wide answers rather than one from every node it must dial.
///
/// A node that hears a newcomer it is not to dial (`LinkArbiter`: the
/// newcomer has the lower number) answers so the newcomer learns of it and
/// dials it. Where `AnswerRoute` says broadcast (nodes sharing a host or an
/// address), every answer wakes every node: a newcomer with a low number
/// among N nodes draws up to N - 1 of them, and the LAN receives N² datagrams.
///
/// The rule, after mDNS (RFC 6762 6 and 7.2: answers to a shared question
/// wait a random 20-120 ms, and one already given by others is not repeated):
/// - Up to `quietSize` known nodes (itself included), nothing changes: the
///   answer goes out at once.
/// - Above it, the answer waits a random 20-120 ms (`window`: longer on a
///   LAN past 120 nodes, at most 1 s). It is not
///   needed, and not sent, if meanwhile the newcomer was linked (either
///   side dialled) or a broadcast beacon of ours went out (that was it).
/// - If `enough` beacons from linked peers were heard while it waited (the
///   LAN is already awake with others' answers), ours would be one more
///   datagram for every node; this node dials the newcomer instead (the
///   fallback dial of `LinkArbiter`, brought forward). The dial links the
///   pair directly and wakes no one else. Should the dial fail, the
///   answer is broadcast after all (`dialFailed`).
///
/// Where links are bounded (the overlay above its threshold, issue 29),
/// nobody links to everyone: a newcomer needs a few nodes to dial, not the
/// whole LAN. There, after SSDP's and mDNS's answers to a shared question:
/// - only a share of the LAN takes part: each node answers with
///   probability `answerers / knownNodes` (`share`), so about `answerers`
///   of them answer, whatever N (any node is asked, not only those with a
///   higher number: the lower ones do not dial a newcomer their overlay
///   did not ask for, and a newcomer with a high number drew no answers
///   at all); the others stay silent
///   (`Request.skipped`), and the newcomer finds them later if its overlay
///   wants them (their periodic beacons, the membership's walks);
/// - every beacon heard during the wait counts toward `enough`, linked or
///   not (mDNS's known answers: any node's answer does), and a suppressed
///   answer is simply dropped: a dial would be a link the overlay did not
///   ask for.
/// Where links are not bounded (a full mesh past `quietSize`, or a node
/// too new to know how large the LAN is), the same share answers and the
/// others dial the newcomer at once (`Request.dial`): the link a full mesh
/// needs anyway, one handshake rather than a datagram every node wakes for.
/// So a newcomer draws a bounded number of broadcasts at any N, and a mass
/// start no longer makes every node answer every other (at 1,000 processes
/// on one host the LAN then carried thousands of answers a second).
///
/// Why a dial, not silence: another node's answer names that node only
/// (nothing tells a newcomer about nodes it has not heard), so a node that
/// stayed silent would be found by its fallback dial (`fallbackDialDelay`,
/// 3 s) or its next periodic beacon (up to 30 s on a large LAN), past the
/// newcomer's second or two. The dial is the same one link the newcomer's
/// own dial would have made; should both dial at once, `LinkArbiter`
/// keeps one. Why `enough` answers still go out: the newcomer's first links
/// come from its own dials too, not only from others reaching its port.
///
/// Pure: times come in as arguments, randomness as a fraction in 0..<1.
public struct NewcomerAnswers: Sendable, Hashable {
    /// A beacon that says its sender had this many links or more is no
    /// newcomer's where links are bounded: not answered. A newcomer's
    /// first beacons say 0.
    public static let settledLinks = 3

    public struct Policy: Sendable, Hashable {
        /// Known nodes up to which every answer goes out at once
        /// (`BeaconSchedule.Policy.quietSize`).
        public var quietSize = 20
        /// A delayed answer waits a random time in `shortest...longest`,
        /// `longest` growing by `longestPerNode` per known node up to
        /// `longestCap` (`window`).
        public var shortest: Duration = .milliseconds(20)
        public var longest: Duration = .milliseconds(120)
        public var longestPerNode: Duration = .milliseconds(1)
        public var longestCap: Duration = .seconds(1)
        /// Beacons from linked peers heard during the wait that turn the
        /// answer into a dial.
        public var enough = 3
        /// Newcomers waiting for an answer at most; one over it is answered
        /// at once (as before), and so are the answers turned into dials
        /// once this many wait for their link.
        public var maxWaiting = 64
        /// False: every answer at once (before this rule; a baseline).
        public var delays = true
        /// Where links are bounded, a node answers with probability
        /// `answerers / knownNodes` (`share`). Zero: every node asked by
        /// the dial rule answers (before session 16; a baseline).
        public var answerers = 16

        public init() {}
    }

    /// What to do with a newcomer's answer when it is asked for.
    public enum Request: Sendable, Hashable {
        /// Broadcast it now (a small LAN, or nothing left to track it with).
        case now
        /// It waits until then (`due`).
        case later(Duration)
        /// Not sent: links are bounded and this node is not among the few
        /// that answer (`share`).
        case skipped
        /// Not sent: this node links to everyone (a full mesh, or a node
        /// too new to know the LAN is large) and is not among the few that
        /// answer, so it dials the newcomer at once (`dialsEarly`): one
        /// handshake instead of a datagram every node wakes for.
        case dial
    }

    /// What the answers due at a moment came to.
    public struct Outcome: Sendable, Hashable {
        /// One broadcast beacon answers every newcomer still waiting.
        public var broadcast = false
        /// Newcomers to dial instead of answering.
        public var dial: [NodeNumber] = []
    }

    private struct Waiting: Sendable, Hashable {
        var due: Duration
        var heard = 0
        /// Links bounded when asked: any beacon heard counts, and enough of
        /// them drop the answer rather than turn it into a dial.
        var bounded = false
    }

    public var policy: Policy
    private var waiting: [NodeNumber: Waiting] = [:]
    /// Newcomers whose answer became a dial, until linked or forgotten.
    public private(set) var dialling: Set<NodeNumber> = []
    /// Answers not broadcast: linked meanwhile, or turned into a dial.
    public private(set) var suppressed = 0

    public init(policy: Policy) {
        self.policy = policy
    }

    /// The longest wait on a LAN of `knownNodes`: 120 ms up to 120 nodes,
    /// then 1 ms a node up to 1 s. The answers that become dials then reach
    /// the newcomer about one a millisecond whatever N (its handshake
    /// costs less), rather than all at once, and still within its second.
    public func window(knownNodes: Int) -> Duration {
        min(max(policy.longest, policy.longestPerNode * knownNodes), max(policy.longestCap, policy.longest))
    }

    /// The share of a bounded LAN of `knownNodes` that answers a newcomer:
    /// all of a LAN up to `answerers` nodes, then `answerers / knownNodes`.
    public func share(knownNodes: Int) -> Double {
        guard policy.answerers > 0 else { return 1 }
        return min(1, Double(policy.answerers) / Double(max(knownNodes, 1)))
    }

    /// The earliest answer due, if any waits.
    public var nextDue: Duration? { waiting.values.lazy.map(\.due).min() }

    /// Whether `number`'s answer became a dial that is not linked yet: it is
    /// dialled as if this node had the lower number.
    public func dialsEarly(_ number: NodeNumber) -> Bool { dialling.contains(number) }

    /// Newcomer `number` wants an answer at `now`; this node knows
    /// `knownNodes` nodes, itself included. `boundedLinks`: the node keeps
    /// only the links it chooses (the overlay above its threshold).
    /// `random`: a fraction in 0..<1 (one draw decides both whether a
    /// bounded node answers and when).
    public mutating func request(for number: NodeNumber, at now: Duration, knownNodes: Int, boundedLinks: Bool = false,
                                 random: Double) -> Request {
        guard policy.delays, knownNodes > policy.quietSize else { return .now }
        if let entry = waiting[number] { return .later(entry.due) }
        var fraction = min(max(random, 0), 1)
        let share = share(knownNodes: knownNodes)
        guard waiting.count < policy.maxWaiting, dialling.count < policy.maxWaiting else { return .now }
        if share < 1, fraction >= share {
            suppressed += 1
            guard !boundedLinks else { return .skipped }
            dialling.insert(number)
            return .dial
        }
        fraction /= share
        let due = policy.shortest + (window(knownNodes: knownNodes) - policy.shortest) * fraction
        waiting[number] = Waiting(due: now + due, bounded: boundedLinks && policy.answerers > 0)
        return .later(now + due)
    }

    /// A beacon from a linked peer: for every waiting answer, one more
    /// answer the LAN already carries.
    public mutating func heardLinkedBeacon() {
        for number in waiting.keys { waiting[number]?.heard += 1 }
    }

    /// A beacon from `sender`, linked or not: one more known answer for
    /// the answers that wait with links bounded (not the newcomer's own
    /// beacons: the rest of its start burst answers nothing).
    /// `count`: for a simulation's batch.
    public mutating func heardBeacon(from sender: NodeNumber, count: Int = 1) {
        guard !waiting.isEmpty else { return }
        for (number, entry) in waiting where entry.bounded && number != sender { waiting[number]?.heard += count }
    }

    /// A broadcast beacon of ours went out: every waiting newcomer heard it.
    public mutating func sentBeacon() {
        waiting.removeAll()
    }

    /// `number` is linked: its answer (or early dial) is not needed.
    public mutating func linked(_ number: NodeNumber) {
        dialling.remove(number)
        if waiting.removeValue(forKey: number) != nil { suppressed += 1 }
    }

    /// A dial of `number` failed. True if it was an answer turned into a
    /// dial: the answer is broadcast after all (the newcomer's port may be
    /// unreachable from here, or its connection gate full: on one host
    /// every dial comes from 127.0.0.1, and past `connectionBurstPerAddress`
    /// (64) of them it refuses), and `number` is dialled by the usual rule.
    public mutating func dialFailed(_ number: NodeNumber) -> Bool {
        guard dialling.remove(number) != nil else { return false }
        suppressed -= 1
        return true
    }

    /// Forgets newcomers `isGone` says are gone (their announcement expired).
    public mutating func forget(where isGone: (NodeNumber) -> Bool) {
        guard !waiting.isEmpty || !dialling.isEmpty else { return }
        waiting = waiting.filter { !isGone($0.key) }
        dialling = dialling.filter { !isGone($0) }
    }

    /// The answers due at `now`: those whose wait heard `enough` become
    /// dials; if any other is due, one broadcast answers every one waiting.
    public mutating func due(at now: Duration) -> Outcome {
        var outcome = Outcome()
        guard let next = nextDue, next <= now else { return outcome }
        for (number, entry) in waiting where entry.due <= now {
            if entry.bounded, entry.heard >= policy.enough {
                // Known answers: the newcomer has enough nodes to dial.
                waiting[number] = nil
                suppressed += 1
            } else if entry.heard >= policy.enough {
                waiting[number] = nil
                dialling.insert(number)
                outcome.dial.append(number)
                suppressed += 1
            } else {
                outcome.broadcast = true
            }
        }
        outcome.dial.sort()
        if outcome.broadcast { waiting.removeAll() }
        return outcome
    }
}
