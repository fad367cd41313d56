import ChatCore

/// One step of the node, computed before anything changes: the rows to
/// commit, and what to do once (and only if) they are committed.
struct NodePlan {
    /// Written in one transaction.
    var changes = StoreChanges()
    /// Done in order after the commit returns, never before.
    var effects: [NodeEffect] = []
    /// Commands answered only after the commit (their outcome is in `effects`).
    var commands: [PendingCommand] = []
    /// Handed over as soon as the step is planned, whatever its commit
    /// (`PlanNotice`): the planner itself performs nothing.
    var notices: [PlanNotice] = []
    /// Outgoing DMs this plan queues, per peer (a decline in the same
    /// step fails them too).
    var queued: [NodeNumber: [MessageID]] = [:]
    /// Outgoing DMs queued by the step this one was planned on top of,
    /// whose commit had not returned (so they were not in the outbox yet).
    var queuedBefore: [NodeNumber: [MessageID]] = [:]
    /// A catch-up page being merged: asked again if the commit fails.
    var catchUpPages: [CatchUpPage] = []
    /// Requests (ids) the step this one was planned on top of answers (its
    /// `.caughtUp` has not run yet): another reply to them is unsolicited.
    var catchUpAnsweredBefore = Set<MessageID>()
    /// Other authors' stored usage when the step began, plus what it admits
    /// (ChatNode+TrustPools.swift).
    var authorUsage: [NodeNumber: StorageUsage] = [:]
    /// `authorUsage` before this step admitted anything: the difference is
    /// what a step planned on top of this one counts as already stored.
    var startUsage: [NodeNumber: StorageUsage] = [:]
    /// Other authors' standing when the step began (first seen, pooled).
    var standing: [NodeNumber: AuthorStanding] = [:]
    /// Each author's class as this step first found it (ChatNode+TrustPools.swift).
    var trust: [TrustKey: StorageTrust] = [:]
    /// Authors refused for their quota in this step.
    var quotaReached = Set<NodeNumber>()
    /// What planning refused or found (duplicates, invalid entries, quota),
    /// added to the node's counters only when the step is applied: a step
    /// whose commit fails, and is planned again, counts once.
    var counted = NodeCounters()
    /// Where each room's latest unread report is in `effects`.
    private var unreadAt: [RoomID: Int] = [:]

    /// `looked` (a lookup made before this plan's commit) as it stands
    /// once the commit is made: the authors it unpools hold nothing in the
    /// pool (the store unpools before it inserts), the messages it pools
    /// are counted, and an author stored for the first time was first seen
    /// at its time. A step planned on top of this one reads this, so it
    /// unpools an author this one pooled (a DM accepted while that
    /// author's first message commits).
    func standing(after looked: [NodeNumber: AuthorStanding]) -> [NodeNumber: AuthorStanding] {
        var standing = looked
        for author in changes.unpooled where standing[author] != nil { standing[author]!.pooledMessages = 0 }
        for message in changes.messages {
            var entry = standing[message.senderNumber] ?? AuthorStanding(firstSeen: nil)
            if entry.firstSeen == nil { entry.firstSeen = changes.now }
            if changes.pooled.contains(message.id) { entry.pooledMessages += 1 }
            standing[message.senderNumber] = entry
        }
        return standing
    }

    /// Reports `event` after the commit. A room's unread count supersedes
    /// the step's earlier report of that room: the front end hears the
    /// count once, as it is after the step (a flood of 4096 messages is one
    /// unread event, not 4096).
    mutating func report(_ event: ChatEvent) {
        if case .unreadChanged(let room, _) = event {
            if let earlier = unreadAt[room] { effects[earlier] = .superseded }
            unreadAt[room] = effects.count
        }
        effects.append(.report(event))
    }

    /// The step under this one aged messages of `room` out after this one
    /// was planned: its report of the room says `count` instead.
    mutating func correctUnread(_ room: RoomID, to count: Int) {
        guard let at = unreadAt[room] else { return }
        effects[at] = .report(.unreadChanged(room, count: count))
    }
}

/// An author, and whether the message is in its DM room (there an
/// accepted conversation makes it the user's own).
struct TrustKey: Hashable {
    let author: NodeNumber
    let direct: Bool
}

/// What a plan hands over at once, commit or not: nothing here is chat
/// state the commit could fail to store.
enum PlanNotice {
    /// A command refused while planning: answered now, and it plans nothing.
    case refused(PendingCommand, NodeError)
    /// A file-transfer frame: `FileTransfers` keeps its own state.
    case file(P2PPayload, from: NodeNumber, dmState: DMState)
}

/// Something the node does after a commit.
enum NodeEffect {
    /// Report a chat event; a `.message` only if its row was new.
    case report(ChatEvent)
    case emit(NodeEvent)
    case send(P2PPayload, to: NodeNumber)
    case broadcast(P2PPayload)
    /// Acknowledge a DM-kind frame: it is stored.
    case acknowledge(P2PPayload, to: NodeNumber)
    /// Start retrying an outgoing DM.
    case enqueue(P2PPayload)
    /// Track an outgoing DM whose first copy this plan sends itself
    /// (`.send`): retried from the first backoff on.
    case enqueueSent(P2PPayload)
    /// The peer acknowledged a DM.
    case delivered(MessageID, peer: NodeNumber)
    /// The conversation was declined: drop the peer's DMs from the outbox.
    case failOutbox(NodeNumber)
    case answerCatchUp(P2PPayload, from: NodeNumber)
    /// A catch-up page was merged: remember where it ended, report it,
    /// ask for the next.
    case caughtUp(CatchUpPage)
    /// Public messages a catch-up page stored, as their authors signed them.
    case spread([P2PPayload])
    case linkLost(NodeNumber)
    /// A peer's messages were refused for its storage quota (said once).
    case quotaReached(NodeNumber, nickname: String, used: StorageUsage)
    /// DMs held for a key change, as committed: add these, drop those.
    case heldChanged(NodeNumber, adding: [Message], removing: [MessageID])
    /// Answer a command.
    case resume(PendingCommand, Result<Message?, NodeError>)
    /// Nothing: an unread report a later one in the same step replaced.
    case superseded
}

/// What the user asked the node to do; planned with the received frames of
/// the same step and committed with them (group commit).
enum NodeCommand: Sendable {
    /// Drafted and signed before the step (`ChatNode.sendPublic`).
    case sendPublic(P2PPayload, Message)
    case sendDirect(String, to: NodeNumber, automatic: Bool)
    case answer(NodeNumber, accepting: Bool)
    /// A DM held for a key change: stored, not sent (ChatNode+KeysHeld.swift).
    case holdDirect(String, to: NodeNumber, automatic: Bool)
    /// Held DMs sent (the user confirmed the key) or discarded.
    case releaseHeld([Message], to: NodeNumber)
    case discardHeld([MessageID], to: NodeNumber)
}

/// A command waiting for its step's commit.
struct PendingCommand: Sendable {
    let command: NodeCommand
    let reply: CheckedContinuation<Result<Message?, NodeError>, Never>

    func resume(_ result: Result<Message?, NodeError>) { reply.resume(returning: result) }
}
