import ChatCore
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
            // handed a held link its peer (`admitHeldLink`) meanwhile.
            if reason == .handshakeTimedOut, core[id]?.lifecycle.isUnfinished == false { return }
            drop(link, cause(of: reason))
        case .ping(let id):
            guard let link = links[id] else { return }
            write(ControlFrame.encode(control(.ping)), to: link)
        case .release(let id):
            guard let link = links[id] else { return }
            release(link, graceful: false)
        case .probe(let id):
            guard let link = links[id] else { return }
            startProbe(link)
        case .dial(let endpoint, let number):
            dial(endpoint, expecting: number, staticIndex: nil)
        case .deferDial(let number):
            if announcements.deferDial(number) { stats.deferredDials += 1 }
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

    /// What the timeouts of the links depend on that the shell holds:
    /// queued output, and which overlay links run stretched.
    var linkLoad: LinkLoad {
        var load = LinkLoad(handshakeAllowance: schedulingLag.handshakeAllowance(at: now))
        let stretch = overlayIsPartial
        for link in links.values {
            if link.queuedByteCount > 0 { load.queued.insert(link.id) }
            if stretch, link.speaksOverlay, !link.onDemand { load.stretched.insert(link.id) }
        }
        return load
    }
}
