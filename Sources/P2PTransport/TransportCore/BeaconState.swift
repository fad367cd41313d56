import ChatCore

/// The core's beacon and answer timing: the start burst, the next
/// periodic turn (`BeaconSchedule`), the gap between broadcast answers,
/// and where an answer may go alone (`AnswerRoute`).
struct BeaconState: Sendable {
    /// Beacons sent at start, this far apart, before the jittered schedule.
    static let startBurst = 3
    static let burstGap: Duration = .milliseconds(100)

    var burstLeft = BeaconState.startBurst
    /// When the next beacon turn is due.
    var nextAt: Duration = .zero
    /// When periodic beacons go out, and which are skipped as redundant.
    var schedule: BeaconSchedule
    /// `knownNodeCount` as of the last beacon turn.
    var knownAtTurn = 1
    var lastAnswerAt: Duration?
    /// An answer waits for the gap to end; the next beacon turn is it.
    var answerDeferred = false
    /// This host's addresses, as our own beacons came back from them.
    var ownAddresses: Set<UInt32> = []
    /// Answers sent to a newcomer alone (`AnswerRoute`).
    var unicastAnswers = TokenBucket(capacity: AnswerRoute.unicastBurst, perSecond: AnswerRoute.unicastPerSecond)

    init(policy: BeaconSchedule.Policy) {
        schedule = BeaconSchedule(policy: policy)
    }
}

/// What the control plane counted (merged into `TransportCounters`).
struct ControlCounts: Sendable, Hashable {
    var beaconsReceived = 0
    var beaconsSkipped = 0
    var answersBroadcast = 0
    var beaconConflicts = 0
    var refusedAnnouncements = 0
    var deferredDials = 0

    func add(to counters: inout TransportCounters) {
        counters.beaconsReceived += beaconsReceived
        counters.beaconsSkipped += beaconsSkipped
        counters.answersBroadcast += answersBroadcast
        counters.beaconConflicts += beaconConflicts
        counters.refusedAnnouncements += refusedAnnouncements
        counters.deferredDials += deferredDials
    }
}
