import ChatCore

/// What a step's plan reads, as a value: the chat models, the catch-up
/// state, the peers linked now, the outbox, the room being read, the
/// trust the key ledger gives, and the counters a committed step adds to.
///
/// Planning is a pure function of this value and the step's input
/// (`plan(_:after:)`, NodeCore+Plan.swift): no actor, no await, no store,
/// and nothing here changes while planning; the plan holds the rows to
/// commit, the router as it is once they are committed, and what to do
/// after. The `ChatNode` actor carries the plan to the store and, only if
/// the commit succeeds, back here (`adopt`). A failed commit leaves this
/// value as it was, so planning the same input again plans the same step.
struct NodeCore: Sendable {
    /// The chat models (public room, conversations), as committed.
    var router: MessageRouter
    /// Catch-up as we ask it: requests, cursors, the round.
    var catchUp = CatchUpState()
    /// Peers linked now.
    var directory = PeerDirectory()
    /// Outgoing DMs waiting for an acknowledgement.
    var outbox = Outbox()
    /// The room the reader has open: a message arriving there is read.
    var activeRoom: RoomID?
    /// Peers told (once per run) that they reached their storage quota.
    var quotaReported = Set<NodeNumber>()
    /// Each known node's trust by the key ledger (as `TrustBook` publishes it).
    var ledgerTrust: [NodeNumber: PeerTrust] = [:]
    var counters = NodeCounters()
    /// Router changes made outside a step while one commits (a room
    /// activated, read, a rename), as values; nil while no step is in
    /// flight. The step's copy takes them before it is adopted, so the
    /// adoption does not undo them (`change`, `adopt`).
    private(set) var changesInFlight: [RouterChange]?

    /// Fixed for the node's life.
    let options: NodeOptions
    /// Checks relayed signatures (a pure function of the frame); nil: the
    /// node neither signs nor relays.
    let authenticator: (any MessageAuthenticator)?
    /// Where planning says what it refused (no state: a sink).
    let logger: ChatLogger

    init(identity: NodeIdentity, options: NodeOptions = NodeOptions(),
         authenticator: (any MessageAuthenticator)? = nil, logger: ChatLogger = .disabled) {
        router = MessageRouter(identity: identity)
        self.options = options
        self.authenticator = authenticator
        self.logger = logger
    }

    var identity: NodeIdentity { router.identity }

    /// Key-ledger verified nodes.
    var verified: Set<NodeNumber> { Set(ledgerTrust.filter { $0.value.isVerified }.keys) }

    /// This value as it will be once a step leaving the router as
    /// `scratch` is committed: what a step planned on top of that one
    /// (while it commits) reads.
    func assuming(_ scratch: MessageRouter) -> NodeCore {
        var ahead = self
        ahead.router = scratch
        return ahead
    }

    /// A step was planned and heads for the store: the catch-up replies it
    /// merges arrived, so their timeouts stop now, not when the commit
    /// returns. The carrier's first change after planning, not the planner's.
    mutating func planned(_ plan: NodePlan) {
        catchUp.pagesPlanned(plan.catchUpPages)
    }

    // MARK: Adoption

    /// A step is on its way to the store: changes made outside it from now
    /// on are kept for its copy.
    mutating func stepInFlight() {
        if changesInFlight == nil { changesInFlight = [] }
    }

    /// Changes the router outside a step; kept for the copy of a step in
    /// flight. Returns the chat events the change says.
    @discardableResult
    mutating func change(_ change: RouterChange) -> [ChatEvent] {
        changesInFlight?.append(change)
        return change.apply(to: &router)
    }

    /// The changes made outside the step now committing, taken for its
    /// copy (and the next step's); `stillInFlight`: a step planned on top
    /// of it commits next, so later changes are kept for that one.
    mutating func takeChangesInFlight(stillInFlight: Bool) -> [RouterChange] {
        let taken = changesInFlight ?? []
        changesInFlight = stillInFlight ? [] : nil
        return taken
    }

    /// `plan` is committed (`added`: the rows the store took): the models
    /// become the step's copy, with the changes made outside it meanwhile,
    /// and its counts join the node's.
    mutating func adopt(_ scratch: consuming MessageRouter, plan: NodePlan, added: Int, outside: [RouterChange]) {
        counters.add(plan.counted)
        counters.stored += added
        for change in outside { _ = change.apply(to: &scratch) }
        router = consume scratch
        // Rooms take the step's messages into their buffers (copied once if
        // the next step's copy still shares them).
        router.settle()
    }
}
