import ChatCore

/// A running chat node: takes frames from its transport, routes them
/// through `MessageRouter` into `PublicChat` / `DirectChat`, and reports what
/// happened as `NodeEvent`s. Commands (send, DM, accept, …) go the other way.
///
/// Identity, transport, clock and logger are injected; nothing is global.
public actor ChatNode {
    public enum State: Sendable, Equatable { case idle, running, stopped }

    public nonisolated let events: AsyncStream<NodeEvent>
    let eventSink: AsyncStream<NodeEvent>.Continuation
    let transport: any PeerTransport
    let clock: any ChatClock
    let logger: ChatLogger
    var router: MessageRouter
    var directory = PeerDirectory()
    var activeRoom: RoomID?
    public private(set) var state = State.idle
    private var pump: Task<Void, Never>?

    public init(identity: NodeIdentity, transport: any PeerTransport, clock: any ChatClock = SystemClock(), logger: ChatLogger = .disabled) {
        (events, eventSink) = AsyncStream.makeStream(of: NodeEvent.self, bufferingPolicy: .unbounded)
        self.transport = transport
        self.clock = clock
        self.logger = logger
        router = MessageRouter(identity: identity)
    }

    public var identity: NodeIdentity { router.identity }

    /// Starts the transport and begins handling its events.
    public func start() async throws {
        guard state == .idle else { return }
        try await transport.start()
        state = .running
        let events = transport.events
        pump = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
        emit(.started(identity))
    }

    /// Says leave, closes links, and finishes `events`.
    public func stop() async {
        guard state == .running else { return }
        state = .stopped
        await transport.stop()
        await pump?.value
        emit(.stopped)
        eventSink.finish()
    }

    func emit(_ event: NodeEvent) { eventSink.yield(event) }

    func handle(_ event: TransportEvent) async {
        switch event {
        case .peerJoined(let peer):
            directory.upsert(peer)
            emit(.peerJoined(peer))
        case .peerUpdated(let peer):
            let previous = directory.upsert(peer)
            emit(.peerUpdated(peer, previous: previous))
        case .peerLeft(let number, let reason):
            if let peer = directory.remove(number) { emit(.peerLeft(peer, reason)) }
        case .received(let payload, let peer):
            await receive(payload, from: peer)
        }
    }

    func receive(_ payload: P2PPayload, from peer: NodeNumber) async {
        let result = router.route(payload, from: peer, at: clock.nowMillis())
        for reply in result.replies { await transport.send(reply, to: peer) }
        for event in result.events { report(event) }
    }

    /// Turns a chat-core event into what the front end sees.
    func report(_ event: ChatEvent) {
        switch event {
        case .message(let message):
            emit(.message(message))
        case .dmRequested(let number, let nickname, let message):
            let peer = directory[number] ?? PeerInfo(number: number, nickname: nickname, instanceId: "", address: "")
            emit(.dmRequest(peer, message: message))
        case .dmStateChanged(let number, let state):
            let nickname = directory[number]?.nickname ?? router.directChat.conversation(with: number)?.peerNickname ?? "\(number)"
            emit(.dmState(peer: number, nickname: nickname, state))
        case .unreadChanged(let room, let count):
            emit(.unread(room, count: count))
        case .rejected(let from, let error):
            logger.notice("rejected frame from \(from): \(error)")
            emit(.rejected(from: from, reason: error.description))
        case .unknownType(let from, let name):
            logger.debug("skipped frame of unknown type \(name.prefix(40)) from \(from)")
        case .duplicate, .control:
            break
        }
    }
}
