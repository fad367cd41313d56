import ChatCore
import ChatCrypto
import Foundation
import Synchronization

/// The transfer links of one node (PROTOCOL.md, "The transfer link"): a
/// listener that serves offered files to the peers they were offered to,
/// and fetches that dial a sender and append to a partial file.
///
/// Each link runs on a thread of its own with blocking, timed socket and
/// file calls: a transfer is a long sequential stream, the caps keep the
/// threads few (`FileTransferLimits.active` each way, plus handshakes in
/// progress), and a blocking write is the backpressure (the sender reads
/// the next chunk from disk only when the socket took the last one; the
/// receiver reads the next record only when the last one is written).
/// Chat never shares these sockets or threads.
///
/// A final class: its state is behind one `Mutex`, touched briefly by the
/// link threads and the node; nothing blocks while holding it.
public final class FileTransferService: FileLinkPort, Sendable {
    struct State {
        var listener: Int32 = -1
        var port = 0
        var stopped = false
        var served: [MessageID: ServedFile] = [:]
        /// Digests of files inspected this run, by version (`FileVersion`):
        /// offering the same file again reads none of it.
        var digests: [FileVersion: FileFacts] = [:]
        /// Links running, by transfer: their descriptor once connected.
        var links: [MessageID: Int32] = [:]
        /// Which link owns each entry of `links`: a newer link for the same
        /// transfer (the receiver redialled) replaces an older one, whose
        /// thread must not then remove the newer's entry.
        var linkTokens: [MessageID: Int] = [:]
        var nextToken = 0
        /// Serving links per receiving peer.
        var servingPerPeer: [NodeNumber: Int] = [:]
        var serving = 0
        /// Transfers whose link the node stopped: their thread reports nothing.
        var interrupted: Set<MessageID> = []
        /// Accepted connections still in their handshake.
        var handshaking = 0
        /// The same, by the address they came from (`maxHandshakingPerAddress`).
        var handshakingFrom: [UInt32: Int] = [:]
        var counters = FileLinkCounters()
    }

    /// What the links did so far (tests, `/stats`).
    public struct FileLinkCounters: Sendable, Equatable {
        /// File bytes written to partial files / sent in data records.
        public var bytesReceived: Int64 = 0
        public var bytesSent: Int64 = 0
        /// Fetch links dialled, serving links that passed the handshake.
        public var linksDialled = 0
        public var linksServed = 0
        /// Serving links refused: no such offer for that key, or busy.
        public var refused = 0
        /// Connections closed before their handshake: all slots taken, or
        /// those one address may hold.
        public var handshakesRefused = 0
        /// Files read whole to hash them for an offer, and offers that
        /// took a digest already known for that version of the file.
        public var filesHashed = 0
        public var digestsReused = 0
    }

    public func diagnostics() -> [String: Int] {
        let counters = counters
        return ["fileBytesReceived": Int(counters.bytesReceived), "fileBytesSent": Int(counters.bytesSent),
                "fileLinksDialled": counters.linksDialled, "fileLinksServed": counters.linksServed,
                "fileLinksRefused": counters.refused, "fileHandshakesRefused": counters.handshakesRefused]
    }

    /// Connections in their handshake at once; more are closed at once.
    static let maxHandshaking = 8
    /// Of those, from one address: one host cannot take every slot.
    static let maxHandshakingPerAddress = 2
    /// Digests kept for `inspect` (a few dozen offers; past that the table starts over).
    static let maxDigests = 64

    let state = Mutex(State())
    let credential: HandshakeIdentity.Credential
    let groupSecret: GroupSecret?
    let logger: ChatLogger
    let listenPort: Int
    /// Record size and the pause after each data record sent:
    /// `--file-rate` (also what makes a transfer last in tests).
    let pacing: FilePacing
    /// Paces the records and throttles progress reports.
    let clock: any ChatClock
    public let linkEvents: AsyncStream<FileLinkEvent>
    let continuation: AsyncStream<FileLinkEvent>.Continuation

    /// - Parameter port: 0 for an ephemeral port (announced in each offer).
    public init(identity: IdentityKey, groupSecret: GroupSecret?, port: Int = 0, logger: ChatLogger = .disabled,
                pacing: FilePacing = .unpaced, clock: any ChatClock = SystemClock()) throws(CryptoError) {
        self.pacing = pacing
        self.clock = clock
        credential = try HandshakeIdentity.Credential(identity: identity)
        self.groupSecret = groupSecret
        self.logger = logger
        listenPort = port
        (linkEvents, continuation) = AsyncStream.makeStream(of: FileLinkEvent.self)
    }

    public var port: Int { state.withLock { $0.port } }

    public var counters: FileLinkCounters { state.withLock { $0.counters } }

    func count(_ change: (inout FileLinkCounters) -> Void) {
        state.withLock { change(&$0.counters) }
    }

    public func serve(_ file: ServedFile) {
        state.withLock { $0.served[file.id] = file }
    }

    public func unserve(_ id: MessageID) {
        state.withLock { $0.served[id] = nil }
        interrupt(id)
    }

    func report(_ event: FileLinkEvent) {
        continuation.yield(event)
    }

    /// Reports `event` unless the node stopped this transfer's link.
    func report(_ event: FileLinkEvent, unlessInterrupted id: MessageID) {
        let wasInterrupted = state.withLock { $0.interrupted.contains(id) }
        if !wasInterrupted { report(event) }
    }

    /// Registers a fetch link for `id`; nil if one runs already.
    func beginLink(_ id: MessageID) -> Int? {
        state.withLock { state in
            guard state.links[id] == nil, !state.stopped else { return nil }
            state.links[id] = -1
            state.interrupted.remove(id)
            state.nextToken += 1
            state.linkTokens[id] = state.nextToken
            return state.nextToken
        }
    }

    func attach(_ fd: Int32, to id: MessageID) -> Bool {
        state.withLock { state in
            guard !state.interrupted.contains(id), !state.stopped else { return false }
            state.links[id] = fd
            return true
        }
    }

    /// Takes `fd` out of the table before it closes (the entry stays, so
    /// the transfer still counts as having a link until `endLink`).
    func detach(_ fd: Int32, from id: MessageID) {
        state.withLock { state in
            if state.links[id] == fd { state.links[id] = -1 }
        }
    }

    /// Forgets the link before its descriptor closes, so `interrupt` never
    /// shuts a descriptor number another socket took since.
    func endLink(_ id: MessageID, token: Int) {
        state.withLock { state in
            guard state.linkTokens[id] == token else { return }
            state.links[id] = nil
            state.linkTokens[id] = nil
        }
    }

    /// Milliseconds of the clock's uptime, for throttling progress.
    func uptimeMillis() -> Int64 {
        let (seconds, attoseconds) = clock.uptime().components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension ChatClock {
    /// Blocks the calling thread (a link thread, never one of the
    /// cooperative pool's) until `duration` of this clock has passed: the
    /// link threads pace on the same clock as every other timer.
    func blockingSleep(for duration: Duration) {
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await sleep(for: duration)
            done.signal()
        }
        done.wait()
    }
}
