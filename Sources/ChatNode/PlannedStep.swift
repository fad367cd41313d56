import ChatCore

/// A step's frames and commands as taken from the queues: signatures
/// checked, timestamps clamped, and looked up in the store (one call).
struct StepInput {
    /// Frames that passed `admitLive`, clamped, with their link's peer.
    var frames: [ReceivedFrame]
    var commands: [PendingCommand]
    var now: Int64
    /// The ids to look up (chat frames and catch-up entries) and those stored.
    var ids: [MessageID]
    var stored: Set<MessageID> = []
    /// The authors whose quota the frames touch, and their stored usage.
    var authors: [NodeNumber]
    var usage: [NodeNumber: StorageUsage] = [:]
    var standing: [NodeNumber: AuthorStanding] = [:]
    /// Refusals found while checking (bad signatures), reported in the
    /// step's own turn: after the events of the step before it.
    var notices: [NodeEvent]
    /// The random bits of the ids the step composes (DMs, their accepts,
    /// answers), drawn when the input is made: planning stays a function
    /// of its input, and a peer cannot guess the next id from the last.
    var random = SeededRandom(seed: UInt64.random(in: .min ... .max))

    /// Takes the store's answer; unreadable counts as nothing stored and
    /// no usage (the commit will most likely fail too).
    mutating func take(_ found: StoreLookup?) {
        stored = found?.stored ?? []
        usage = found?.usage ?? [:]
        standing = found?.standing ?? [:]
    }
}

/// A step planned on a copy of the router, waiting for its commit.
struct PlannedStep {
    var plan: NodePlan
    /// The router as it is once the plan is committed.
    var scratch: MessageRouter
    /// What it was planned from: planned again, on the committed router,
    /// if the step it was planned on top of fails to commit.
    var input: StepInput
}

/// A committed step whose effects (events, acks, sends, answers) are still
/// to be performed: they go out while the next step commits.
struct AppliedStep {
    var effects: [NodeEffect]
    /// The ids the commit stored (a `.message` is reported only if new).
    var added: Set<MessageID>
}

/// The input of a step two ahead, taken while the step before it commits;
/// its lookup was queued on the store then and is awaited when it is
/// planned.
struct PrefetchedInput {
    var input: StepInput
    let lookup: Task<StoreLookup?, Never>
}
