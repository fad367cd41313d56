import ChatCore
import Foundation

/// The node's file transfers (PROTOCOL.md, "File transfer"): offers made
/// and received in DM conversations, answers, and the transfer links that
/// move the bytes (`FileLinkPort`). Every transfer not finished is kept in
/// the store, so a restart of either side resumes it: the sender serves
/// its offers again and repeats them when the peer links up; the receiver
/// dials again from its partial file's length.
///
/// Memory follows the disk: a state change is saved before it is applied
/// and reported; a failed save leaves the transfer as it was.
public actor FileTransfers {
    let links: any FileLinkPort
    let transport: any PeerTransport
    let store: any FileTransferStoring
    let events: EventChannel<NodeEvent>
    let clock: any ChatClock
    let logger: ChatLogger
    let identity: @Sendable () async -> NodeIdentity
    public nonisolated let localNumber: NodeNumber
    /// Where received files are saved (created 0700 on first accept).
    public nonisolated let downloadDirectory: String
    /// Every transfer known this run (finished ones too, for `/files`).
    var transfers: [MessageID: FileTransfer] = [:]
    var linked: [NodeNumber: PeerInfo] = [:]
    /// Offers from peers with no accepted DM conversation: in memory,
    /// unseen and not acceptable until the DM request is accepted
    /// (`FileTransfers+Requests.swift`).
    var held: [MessageID: FileTransfer] = [:]
    var ids = MessageIDGenerator()
    /// Per transfer, the bytes and time (ms) of the last progress, for its rate.
    var progressMarks: [MessageID: (bytes: Int64, at: Int64)] = [:]
    /// Offers declined without being shown: past the caps, or from a peer
    /// whose DMs this user declined.
    public internal(set) var declinedUnseen = 0
    /// Fetches waiting to dial again after an interruption, by transfer.
    var retries: [MessageID: Task<Void, Never>] = [:]
    var retryCount: [MessageID: Int] = [:]
    private var pump: Task<Void, Never>?
    let notices: AsyncStream<FileNotice>
    let noticeSink: AsyncStream<FileNotice>.Continuation

    public init(localNumber: NodeNumber, links: any FileLinkPort, transport: any PeerTransport, store: any FileTransferStoring,
                events: EventChannel<NodeEvent>, downloadDirectory: String, clock: any ChatClock = SystemClock(),
                logger: ChatLogger = .disabled, identity: @escaping @Sendable () async -> NodeIdentity) {
        self.localNumber = localNumber
        self.links = links
        self.transport = transport
        self.store = store
        self.events = events
        self.downloadDirectory = downloadDirectory
        self.clock = clock
        self.logger = logger
        self.identity = identity
        (notices, noticeSink) = AsyncStream.makeStream(of: FileNotice.self)
    }

    /// Opens the transfer listener, restores what the store kept, and
    /// starts taking notices and link events.
    public func start() async throws {
        _ = try links.start()
        for transfer in try await store.fileTransfers() {
            transfers[transfer.id] = transfer
            if transfer.direction == .sending, !transfer.state.isFinished { serve(transfer) }
        }
        let notices = notices
        let linkEvents = links.linkEvents
        pump = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await notice in notices { await self?.handle(notice) } }
                group.addTask { for await event in linkEvents { await self?.handle(event) } }
            }
        }
    }

    public func stop() {
        noticeSink.finish()
        for task in retries.values { task.cancel() }
        links.stop()
    }

    /// Finished transfers kept in memory for `/files`; past it the oldest
    /// go (a peer that offers and cancels in a loop cannot grow the node).
    static let finishedKept = 256

    func pruneFinished() {
        let finished = transfers.values.filter(\.state.isFinished)
        guard finished.count > Self.finishedKept else { return }
        for transfer in finished.sorted(by: { $0.id < $1.id }).prefix(finished.count - Self.finishedKept) {
            transfers[transfer.id] = nil
        }
    }

    /// Counters for `/stats`: the links' and the node's side of files.
    public func diagnostics() -> [String: Int] {
        var diagnostics = links.diagnostics()
        diagnostics["fileOffersDeclinedUnseen"] = declinedUnseen
        diagnostics["fileOffersHeld"] = held.count
        diagnostics["fileTransfersRunning"] = transfers.values.filter { $0.state == .accepted }.count
        return diagnostics
    }

    /// Transfers, oldest first.
    public func list() -> [FileTransfer] {
        transfers.values.sorted { $0.id < $1.id }
    }

    public func transfer(_ id: MessageID) -> FileTransfer? { transfers[id] }

    func emit(_ event: FileTransferEvent) {
        _ = events.yield(.file(event))
    }

    /// Saves `transfer`, then adopts it; false (logged) if the store refused.
    @discardableResult
    func commit(_ transfer: FileTransfer) async -> Bool {
        do {
            try await store.save(transfer)
        } catch {
            logger.error("cannot save file transfer \(transfer.id): \(error)")
            return false
        }
        transfers[transfer.id] = transfer
        return true
    }

    func serve(_ transfer: FileTransfer) {
        links.serve(ServedFile(id: transfer.id, peerKey: transfer.peerKey, peer: transfer.peer, path: transfer.path,
                               facts: FileFacts(size: transfer.size, modified: transfer.modified, sha256: transfer.sha256)))
    }

    /// A file frame on the chat link, to or from this node.
    func frame(type: PayloadType, to peer: NodeNumber, refId: MessageID?, content: String = "", id: MessageID? = nil) async -> P2PPayload {
        let me = await identity()
        return P2PPayload(type: type, messageId: id ?? ids.next(millis: clock.nowMillis()), senderNumber: me.number,
                          senderNickname: me.nickname, senderStage: me.stage, content: content,
                          timestamp: clock.nowMillis(), targetNumber: peer, refId: refId)
    }

    func send(_ payload: P2PPayload, to peer: NodeNumber) async {
        await transport.send(payload, to: peer)
    }

    /// The offer frame for a transfer this node sends (repeated with the same id).
    func offerFrame(_ transfer: FileTransfer) async -> P2PPayload {
        let offer = FileOffer(name: transfer.name, size: transfer.size, sha256: transfer.sha256, port: links.port)
        return await frame(type: .fileOffer, to: transfer.peer, refId: nil, content: offer.content, id: transfer.id)
    }

    private func handle(_ notice: FileNotice) async {
        switch notice {
        case .frame(let payload, let peer, let dmState):
            await receive(payload, from: peer, dmState: dmState)
        case .joined(let peer):
            linked[peer.number] = peer
            await peerLinked(peer)
        case .left(let number):
            linked[number] = nil
        case .dmState(let peer, let state):
            await dmStateChanged(with: peer, to: state)
        }
    }

    /// A link to `peer` is up: repeat this node's open offers to it (the
    /// port may be new), and dial again for accepted files it sends.
    private func peerLinked(_ peer: PeerInfo) async {
        for transfer in list() where transfer.peer == peer.number && !transfer.state.isFinished {
            switch transfer.direction {
            case .sending: await send(await offerFrame(transfer), to: peer.number)
            case .receiving where transfer.state == .accepted: fetch(transfer)
            case .receiving: break
            }
        }
    }
}
