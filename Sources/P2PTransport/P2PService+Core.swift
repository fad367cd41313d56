import ChatCore
import ChatOverlay
import ChatWire
import Foundation

extension P2PService {
    /// Carries out what `TransportCore` decided, in order. An action on a
    /// link an earlier one closed is skipped.
    func perform(_ actions: [TransportAction]) {
        for action in actions { perform(action) }
    }

    func perform(_ action: TransportAction) {
        switch action {
        case .accept, .refuse:
            // Only admission returns these, and `acceptLinks` holds the socket.
            assertionFailure("\(action) outside acceptLinks")
        case .close(let id, let reason):
            guard let link = links[id] else { return }
            // A tick's decisions are made together: an earlier one may have
            // handed a held link its peer (`TransportCore.admitHeld`) meanwhile.
            if reason == .handshakeTimedOut, core[id]?.lifecycle.isUnfinished == false { return }
            drop(link, cause(of: reason))
        case .ping(let id):
            guard let link = links[id] else { return }
            writePing(to: link)
        case .release(let id):
            guard let link = links[id] else { return }
            release(link, graceful: false)
        case .probe(let id):
            guard let link = links[id] else { return }
            startProbe(link)
        case .dial(let endpoint, let number):
            dial(endpoint, expecting: number, staticIndex: nil)
        case .dialStatic(let index, let endpoint, let number):
            dial(endpoint, expecting: number, staticIndex: index)
        case .resolveStatic(let index, let address):
            resolve(staticIndex: index, address)
        case .deferDial:
            // The core's dial pass records and counts these itself.
            assertionFailure("\(action) outside the core")
        case .sendBeacon:
            sendBeacon()
        case .sendAnswer(let source):
            sendDiscovery(.beacon, unicast: source)
        case .peerHeard(let number):
            overlayPeerHeard(number)
        case .checkDial(let number):
            dialAnnouncedPeers(only: number)
        case .ignoredBeacon(let number, let why):
            explain(ignored: number, why)
        case .numberClaimed(let other, let source):
            if warnedCollisions.count < Self.maxWarnedCollisions, warnedCollisions.insert(other).inserted {
                logger.warning("instance \(other) at \(source.host) announces this node's number \(identity.number)")
            }
        case .establish(let id):
            guard let link = links[id], let peer = link.peer else { return }
            // The acceptor's first record (a ping) tells the dialler it accepted.
            if link.direction == .inbound { write(ControlFrame.encode(control(.ping)), to: link) }
            if !link.isClosed { establish(link, peer: peer) }
        }
    }

    /// The link's phase, as the core holds it (nil: closed).
    func phase(of link: PeerLink) -> LinkLifecycle.Phase? { core.phase(of: link.id) }

    /// Counts the close and says why, for the log and the peer's report.
    private func cause(of reason: CloseReason) -> LinkDropCause {
        switch reason {
        case .handshakeTimedOut:
            stats.handshakeTimeout += 1
            return .timedOut("handshake not finished within \(configuration.handshakeTimeout)")
        case .peerSilent(let after):
            stats.deadPeer += 1
            return .timedOut("nothing received for \(after)")
        case .writeStalled:
            stats.writeTimeout += 1
            return .timedOut("output stalled for \(configuration.writeTimeout)")
        case .probeUnanswered:
            return .restarted
        case .pendingEvicted(let limit):
            stats.evictedPending += 1
            return .timedOut("\(limit) connections without a hello; the oldest makes room")
        case .duplicate:
            stats.duplicateLinks += 1
            return .superseded("the link dialled by the lower number stays")
        case .ownDialStays(let number):
            stats.duplicateLinks += 1
            return .superseded("our own dial to \(number) is the one that stays")
        case .peersDialStays(let number):
            stats.duplicateLinks += 1
            return .superseded("\(number)'s dial is the one that stays")
        case .linkedFromAnotherInstance(let number):
            return .superseded("\(number) is linked from another instance")
        case .heldRefused(let number):
            return .superseded("\(number) is still linked from another instance")
        case .newerHeld(let number):
            return .superseded("a newer link from \(number) arrived")
        }
    }

    /// Counts a refused connection and says why, for the log.
    func explain(_ refusal: AdmissionRefusal) -> String {
        let limits = configuration.limits
        switch refusal {
        case .linkCap(let cap):
            stats.refusedLinkCap += 1
            return "\(cap) links open"
        case .connectionRate(let remote):
            stats.refusedConnectionRate += 1
            return "more than \(limits.connectionBurstPerAddress) connections, then \(limits.connectionsPerSecondPerAddress)/s, from \(remote.host)"
        case .pendingPerAddress(let remote, let limit):
            stats.refusedPendingPerAddress += 1
            return "\(limit) connections from \(remote.host) have not finished their hello"
        }
    }

    private func explain(ignored number: NodeNumber, _ why: IgnoredBeacon) {
        switch why {
        case .leave:
            logger.debug("ignored a leave datagram for \(number); only a leave frame on a link counts")
        case .linkedLeave:
            logger.debug("ignored a leave datagram for linked \(number); its link's leave frame is the evidence")
        case .conflict(let kind, let announced, let linkedAt):
            logger.debug("ignored a \(kind) for \(number) from \(announced); its link is to \(linkedAt.map(\.description) ?? "?")")
        }
    }

    /// The overlay's say in the dial rule, as plain values for the core:
    /// about `number` alone (nil: every unlinked announced peer).
    func overlayView(for number: NodeNumber? = nil) -> OverlayView {
        guard overlayLinks != nil else { return .none }
        if let number { return Self.view(of: &overlayLinks!, asking: number, now: now) }
        return Self.view(of: &overlayLinks!, among: core.announcements, established: core.established, now: now)
    }

    // `inout`: a copy of the overlay's state per view (one per beacon) cost more than the view.
    private static func view(of state: inout OverlayLinks, asking number: NodeNumber, now: Duration) -> OverlayView {
        let asked = state.wanted[number] != nil || state.direct.isDialling(number, now: now)
        return OverlayView(bounded: !state.isFullMesh, legacy: state.legacy, asked: asked ? [number] : [])
    }

    private static func view(of state: inout OverlayLinks, among announcements: AnnouncementTable,
                             established: [NodeNumber: Int], now: Duration) -> OverlayView {
        var asked = Set(state.wanted.keys)
        for number in announcements.entries.keys where established[number] == nil && state.direct.isDialling(number, now: now) {
            asked.insert(number)
        }
        return OverlayView(bounded: !state.isFullMesh, legacy: state.legacy, asked: asked)
    }

    /// What the timeouts of the links depend on that the shell holds:
    /// queued output, and which overlay links run stretched.
    var linkLoad: LinkLoad {
        var load = LinkLoad(handshakeAllowance: schedulingLag.handshakeAllowance(at: now))
        let stretch = overlayIsPartial
        for link in links.values {
            if link.queuedByteCount > 0 { load.queued.insert(link.id) }
            if stretch, link.speaksOverlay, !link.onDemand {
                load.stretched.insert(link.id)
                if pingsQuietly(link) { load.quiet.insert(link.id) }
            }
        }
        return load
    }
}
