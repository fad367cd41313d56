import ChatCore
import ChatWire

/// Hooks for the transport's own tests (reached with `@testable import`).
extension P2PService {
    /// Simulates a crash: every socket closes with no leave datagram and no
    /// leave frame; peers see the connection end without a goodbye.
    func crashForTesting() {
        guard lifecycle == .running else { return }
        shutDown(graceful: false)
    }

    /// Simulates a hung process: sockets stay open but nothing is read,
    /// written or sent any more. Peers must notice through keepalives.
    func freezeForTesting() {
        frozen = true
        for task in background { task.cancel() }
        background.removeAll()
        stopTimer()
    }

    /// Reads every link once, as a wake-up would (a frozen service reads
    /// only when a test says so).
    func readLinksForTesting() {
        for link in links.values.sorted(by: { $0.id < $1.id }) { readFrames(from: link) }
    }

    /// Writes `payload` on the link to `number` even while frozen (a frozen
    /// service refuses `send`); false once the link takes no more.
    func writeForTesting(_ payload: P2PPayload, to number: NodeNumber) -> Bool {
        guard let link = established[number] else { return false }
        return write(P2PFrameCodec.encode(payload), to: link)
    }

    /// Links in any phase, handshakes included.
    /// Links open, not counting replaced ones on their way out (`retiring`).
    func linkCountForTesting() -> Int { links.values.count { phase(of: $0) != .retiring } }

    /// The same, for links whose remote end is the IPv4 address `address`.
    func linkCountForTesting(from address: UInt32) -> Int {
        links.values.count { phase(of: $0) != .retiring && $0.remote.address == address }
    }

    /// Whether beacons of `number` are current (it would be redialled).
    func isAnnouncedForTesting(_ number: NodeNumber) -> Bool { core.announcements[number] != nil }

    /// Whether static peer `index` was found to be this node.
    func staticPeerIsSelfForTesting(_ index: Int) -> Bool { core.statics[index].isSelf }

    /// Dials 127.0.0.1:`port` as if it had been announced.
    func dialForTesting(port: Int) {
        dial(IPv4Endpoint(address: 0x7F00_0001, port: port), expecting: nil, staticIndex: nil)
    }

    /// The announcement the table holds for `number`: instance id and
    /// the endpoint it would dial.
    func announcementForTesting(_ number: NodeNumber) -> (instanceId: String, endpoint: String)? {
        core.announcements[number].map { ($0.instanceId, $0.endpoint.description) }
    }

    /// Received bytes held for links (records not yet opened), at most.
    func largestInputBacklogForTesting() -> Int {
        links.values.map { $0.records.bufferedByteCount + ($0.unpaidLine?.count ?? 0) }.max() ?? 0
    }
}

extension P2PService {
    /// Our dials that have not finished their handshake.
    func pendingDialCountForTesting() -> Int {
        links.values.count { $0.direction == .outbound && core[$0.id]?.lifecycle.isUnfinished ?? false }
    }

    /// Announcements the table holds.
    func announcementCountForTesting() -> Int { core.announcements.count }
}

extension P2PService {
    /// Switches the delayed answers to newcomers (`NewcomerAnswers`) on or
    /// off, so one LAN can be measured both ways.
    func setDelayedAnswersForTesting(_ on: Bool) {
        core.answers.policy.delays = on
    }

    /// Whether an answer to a newcomer waits (`NewcomerAnswers`).
    func answerWaitsForTesting() -> Bool { core.answers.nextDue != nil }

    /// The LAN's size as this node's last beacon turn counted it.
    func knownNodesAtTurnForTesting() -> Int { core.beacons.knownAtTurn }
}
