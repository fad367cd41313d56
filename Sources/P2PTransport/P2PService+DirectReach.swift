import ChatCore
import ChatOverlay

/// Direct frames to peers outside the overlay's active view (PROTOCOL.md,
/// "Overlay", direct reach): the node hands over the peers it has DMs
/// for (`reach`); this dials them on demand, with `direct` in the hello,
/// and keeps each such link while DMs cross it (closed after
/// `directIdle` without any). The links are not the membership's and
/// carry only direct frames. A peer that cannot be dialled is reached
/// sealed (`P2PService+SealedRelay.swift`). `DirectReach` decides.
extension P2PService {
    static let directCapability = "direct"

    public func reach(_ peers: Set<NodeNumber>) async -> Set<NodeNumber> {
        guard lifecycle == .running, !frozen, overlayIsPartial else { return [] }
        let now = self.now
        var sealed = Set<NodeNumber>()
        for peer in peers.sorted() where established[peer] == nil && peer != identity.number {
            // A peer without the overlay is dialled by the transport's own rule.
            let canDial = core.announcements[peer] != nil && !overlayLinks!.legacy.contains(peer)
            switch overlayLinks!.direct.route(peer, now: now, canDial: canDial) {
            case .dial:
                stats.directDials += 1
                logger.debug("dialling \(peer) on demand for direct frames")
                dialAnnouncedPeers(only: peer)
            case .sealed:
                sealed.insert(peer)
            case .queryCard:
                queryCard(of: peer)
            case .wait:
                break
            }
        }
        return sealed
    }

    /// Whether a dial to `number` is one made on demand (not the overlay's own).
    func diallingOnDemand(_ number: NodeNumber) -> Bool {
        guard let state = overlayLinks else { return false }
        return state.wanted[number] == nil && state.direct.isDialling(number, now: now)
    }

    /// The hello's capabilities on `link`: `direct` marks a dial made on demand.
    func capabilities(on link: PeerLink?) -> [String] {
        guard let link, link.onDemand else { return announcedCapabilities }
        return announcedCapabilities + [Self.directCapability]
    }

    /// The peer's hello arrived: whether `link` is on demand, and whether
    /// it may be kept (an acceptor holds at most `directLinksMax` inbound).
    func admitsOnDemand(_ link: PeerLink, capabilities: [String]) -> Bool {
        guard let state = overlayLinks else {
            link.onDemand = false
            return true
        }
        if link.direction == .inbound { link.onDemand = capabilities.contains(Self.directCapability) }
        // A peer without the overlay is linked as without it (and so marked).
        if !capabilities.contains(Self.overlayCapability) { link.onDemand = false }
        guard link.onDemand else { return true }
        // Not an overlay link: no overlay frames cross it.
        link.speaksOverlay = false
        guard link.direction == .inbound, let number = link.peer?.number, established[number] == nil else { return true }
        guard state.direct.admits(inbound: true) else {
            stats.directRefused += 1
            return false
        }
        return true
    }

    func directLinkUp(_ link: PeerLink, _ number: NodeNumber) {
        stats.directLinks += 1
        overlayLinks!.direct.linkUp(number, inbound: link.direction == .inbound, now: now)
    }

    /// Direct traffic on an on-demand link keeps it open.
    func noteDirectTraffic(on link: PeerLink, _ number: NodeNumber) {
        guard link.onDemand else { return }
        overlayLinks?.direct.traffic(number, now: now)
    }

    /// On an on-demand link only direct frames (and the link's own control
    /// frames) go either way.
    static func carriesOnDemand(_ type: PayloadType) -> Bool {
        switch type {
        case .hello, .ping, .pong, .leave: true
        default: type.isDirect
        }
    }

    /// Closes on-demand links idle for `directIdle` (run from the overlay's tick).
    func closeIdleDirectLinks() {
        guard let state = overlayLinks else { return }
        for peer in state.direct.idle(now: now) {
            guard let link = established[peer], link.onDemand else {
                overlayLinks!.direct.linkDown(peer)
                continue
            }
            stats.directIdleCloses += 1
            drop(link, .superseded("the on-demand link to \(peer) is idle"))
        }
    }
}
