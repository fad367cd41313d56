import ChatCore

/// A running chat node: takes frames from its transport, routes them
/// through `MessageRouter` into `PublicChat` / `DirectChat`, stores them,
/// and reports what happened as `NodeEvent`s. Commands (send, DM, accept, …)
/// go the other way. Outgoing DMs wait in an outbox until acknowledged;
/// missed public messages are fetched from peers when they link up.
///
/// Identity, transport, store, clock and logger are injected; nothing is
/// global.
public actor ChatNode {
    public enum State: Sendable, Equatable { case idle, running, stopped }

    /// What happened, for one front end; holds at most
    /// `NodeLimits.eventBuffer` events, and `NodeLimits.eventBufferBytes`
    /// of them, for one that stops reading.
    public nonisolated let events: EventChannel<NodeEvent>
    let transport: any PeerTransport
    let store: any ChatStoring
    let clock: any ChatClock
    let logger: ChatLogger
    let options: NodeOptions
    /// What a step's plan reads and its adoption changes, as a value
    /// (NodeCore.swift): the actor only carries plans to the store and back.
    var core: NodeCore
    /// Ids of this node's public messages, taken when one is drafted
    /// (before its step; see `sendPublic`), strictly increasing.
    var publicMessageIDs = MessageIDGenerator()
    /// `directory` and `identity` as front ends read names from them.
    let names: NameBook
    /// When we last heard from each peer (ms), and when its link went down:
    /// the catch-up cursor goes back to the last contact.
    var lastHeard: [NodeNumber: Int64] = [:]
    var linkLostAt: [NodeNumber: Int64] = [:]
    /// Catch-up as we answer it (budgets): a value the node only carries
    /// (ChatNode+CatchUp.swift); as we ask it, `core.catchUp`.
    var catchUpServing = CatchUpServing()
    /// Ids for the node's own link and delivery frames (acks, catch-up):
    /// strictly increasing, like the chat models' ids.
    var messageIDs = MessageIDGenerator()
    /// The key ledger and what it held or said this run (ChatNode+Keys.swift).
    var keyContinuity = KeyContinuity()
    /// Peers' trust as front ends read it without waiting (ChatNode+Keys.swift).
    let trustBook = TrustBook()
    /// Signs our public messages and checks others' (ChatNode+Signatures.swift).
    let authenticator: (any MessageAuthenticator)?
    /// Stored messages whose signature was checked before relaying (ChatNode+Relay.swift).
    var relayChecks = RelayChecks()
    public private(set) var state = State.idle
    /// Transport events taken from the stream and not yet handled, in
    /// arrival order (see ChatNode+Pipeline.swift).
    var inbox = TransportInbox()
    /// Whether the transport was asked to stop reading (the inbox is long).
    var readingPaused = false
    /// What the transport was last told, and whether telling is under way.
    var transportPaused = false
    var tellingTransport = false
    /// Commands waiting for the next step.
    var commands: [PendingCommand] = []
    /// Set while the store refuses writes (said once, see ChatNode+StoreHealth.swift).
    var storeFailure: StoreError?
    /// When the store last refused a write, on the node's clock.
    var lastStoreFailureAt: Duration?
    /// When the store last took a write while `storeFailure` was set.
    var lastStoreSuccessAt: Duration?
    /// A check that the store has stayed writable is waiting on the clock.
    var storeRecoveryCheckPending = false
    /// Linked peers whose live public messages a failed commit lost, to be
    /// asked for catch-up (see `recoverLostPublicMessages`).
    var lostPublicFrom: Set<NodeNumber> = []
    /// Whether a committed step's effects are being performed, and who
    /// waits for that to end (ChatNode+Effects.swift).
    var applying = false
    var applyWaiters: [CheckedContinuation<Void, Never>] = []
    /// File transfers, once attached (`attach(files:)`), and where file
    /// frames and peer changes go for them.
    public internal(set) var files: FileTransfers?
    var fileNotices: AsyncStream<FileNotice>.Continuation?
    /// Set when a transport event or command is queued; a lone step's
    /// planner, on the store's executor, reads it (ChatNode+LoneStep.swift).
    nonisolated let arrived = ArrivalFlag()
    /// The task handling `inbox`, while it has work.
    var drainer: Task<Void, Never>?
    private var pump: Task<Void, Never>?
    private var ticker: Task<Void, Never>?
    private var tickerParking: CheckedContinuation<Void, Never>?

    /// Whose serial executor the node runs on: its transport's, when the
    /// transport is an actor (`P2PService`), else an empty actor of its own.
    /// Sharing it, a frame the transport hands over resumes the node on
    /// the same executor, after the transport's turn, on the same thread:
    /// no hand-off between the transport and the node either way (events
    /// in, sends out). The cost: the two no longer run at once (in a
    /// flood, reading and planning take turns); the store and the poll
    /// thread keep their own threads, so commits still overlap both.
    private nonisolated let executorOwner: any Actor

    /// See `executorOwner`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    public init(
        identity: NodeIdentity, transport: any PeerTransport, store: any ChatStoring,
        clock: any ChatClock = SystemClock(), logger: ChatLogger = .disabled,
        authenticator: (any MessageAuthenticator)? = nil, options: NodeOptions = NodeOptions()
    ) {
        events = EventChannel(capacity: NodeLimits.eventBuffer, byteBudget: NodeLimits.eventBufferBytes,
                              weigh: { $0.approximateBytes })
        self.transport = transport
        executorOwner = (transport as? any Actor) ?? NodeHost()
        self.store = store
        self.clock = clock
        self.logger = logger
        self.authenticator = authenticator
        self.options = options
        core = NodeCore(identity: identity, options: options, authenticator: authenticator, logger: logger)
        number = identity.number
        names = NameBook(identity: identity)
    }

    public var identity: NodeIdentity { router.identity }

    /// This node's number: fixed for its life (nickname and stage may
    /// change), so readable without waiting for the actor.
    public nonisolated let number: NodeNumber

    /// Loads history and the outbox from the store, starts the transport,
    /// and begins handling its events.
    public func start() async throws {
        guard state == .idle else { return }
        try await restore()
        try await restoreKeys()
        await store.warmUp()
        try await transport.start()
        state = .running
        let events = transport.events
        pump = Task { [weak self] in await self?.pumpEvents(events) }
        ticker = Task { [weak self, clock] in
            while !Task.isCancelled {
                // An empty outbox needs no timer: an idle node does not wake.
                await self?.parkWhileOutboxEmpty()
                try? await clock.sleep(for: NodeLimits.outboxTick)
                guard let self else { return }
                await self.pumpOutbox()
            }
        }
        emit(.started(identity))
    }

    /// Takes the transport's events on the node's own executor: each one
    /// resumes here directly, with no second hop from the pool per frame.
    /// Ends when the transport finishes its stream (`stop()`).
    private func pumpEvents(_ events: EventChannel<TransportEvent>) async {
        for await event in events { await enqueue(event) }
    }

    /// Says leave, closes links, and finishes `events`.
    public func stop() async {
        guard state == .running else { return }
        state = .stopped
        ticker?.cancel()
        wakeTicker()
        // A step applying its commit hands its frames over first: a send
        // already answered is written before the links close.
        await finishApplying()
        await transport.stop()
        await pump?.value
        await drainer?.value  // every event the transport reported is handled
        await flushKeys()  // sightings not yet written (ChatNode+KeysWrite.swift)
        emit(.stopped)
        events.finish()
    }

    func emit(_ event: NodeEvent) {
        if case .droppedOldest(let count) = events.yield(event) { counters.eventsDropped += count }
    }

    /// Suspends the outbox timer until something is queued (or the node stops).
    private func parkWhileOutboxEmpty() async {
        guard outbox.count == 0, state == .running else { return }
        await withCheckedContinuation { tickerParking = $0 }
    }

    /// Resumes the outbox timer (an entry was queued, or the node stops).
    func wakeTicker() {
        tickerParking?.resume()
        tickerParking = nil
    }

    /// Brings back what the store kept: conversations with their request
    /// state, each room's newest messages and unread count, and the DMs
    /// still waiting for an acknowledgement.
    private func restore() async throws {
        let me = identity.number
        let rooms = try await store.rooms()
        let unread = Dictionary(rooms.map { ($0.room, $0.unreadCount) }, uniquingKeysWith: { first, _ in first })
        router.publicChat.restore(try await store.page(.publicRoom, before: nil, limit: ChatLimits.roomCapacity),
                                  unreadCount: unread[.publicRoom] ?? 0)
        for conversation in try await store.conversations() {
            let room = RoomID.direct(conversation.peer)
            router.directChat.restore(
                peer: conversation.peer, peerNickname: conversation.nickname, state: conversation.state,
                messages: try await store.page(room, before: nil, limit: ChatLimits.roomCapacity),
                unreadCount: unread[room] ?? 0)
        }
        for message in try await store.undelivered() where message.senderNumber == me {
            guard let peer = message.room.peer else { continue }
            // A request not yet answered goes again as a request; otherwise
            // as a message (a peer that lost our request treats it as one).
            let type: PayloadType = router.directChat.state(with: peer) == .outgoingRequest ? .dmRequest : .directMessage
            let payload = P2PPayload(
                type: type, messageId: message.id, senderNumber: me, senderNickname: message.senderNickname,
                senderStage: message.senderStage, content: message.content, timestamp: message.timestamp,
                targetNumber: peer, automatic: message.automatic ? true : nil)
            outbox.enqueue(payload, at: clock.uptime(), state: try await store.delivery(of: message.id) ?? .queued)
        }
        if outbox.count > 0 { logger.info("outbox: \(outbox.count) DMs waiting from the last run") }
    }

    /// A peer joined, changed or left (frames go through `step`).
    func handle(_ change: PeerChange) async {
        switch change {
        case .joined(let peer):
            directory.upsert(peer)
            await noteKey(of: peer, reporting: .peerJoined(peer))
            fileNotices?.yield(.joined(peer))
            outbox.peerReachable(peer.number, at: clock.uptime())
            await pumpOutbox()
            await catchUpPeerLinked(peer.number)
        case .updated(let peer):
            let previous = directory.upsert(peer)
            await noteKey(of: peer, reporting: .peerUpdated(peer, previous: previous))
        case .left(let number, let reason):
            linkLostAt[number] = lastHeard[number] ?? clock.nowMillis()
            fileNotices?.yield(.left(number))
            if let peer = directory.remove(number) { emit(.peerLeft(peer, reason)) }
            await catchUpPeerLeft(number)
        }
    }
}

/// An empty actor whose default executor a node borrows when its
/// transport is not an actor (the tests' in-memory transports).
actor NodeHost {}
