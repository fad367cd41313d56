import ChatCore
import ChatOverlay
import Foundation

/// The overlay's shell (PROTOCOL.md, "Overlay"): feeds the pure `Overlay`
/// what the transport sees (a beacon heard, a link up or down, an overlay
/// frame, the clock) and carries out what it answers (dial, close, send,
/// deliver).
///
/// Only links whose peer lists `overlay` in its hello take part; a link to
/// any other peer is kept and used as without the overlay. Below the
/// full-mesh threshold the transport dials and keeps every link as it
/// always did and public messages go to every link; above it, only the
/// peers the overlay asks for are dialled (and those that speak no
/// overlay), the overlay closes the links it does not keep, and this
/// node's public messages go by gossip to overlay peers and whole to the
/// others.
///
/// A gossiped message is verified against its author's signature here,
/// once per new id, before it is handed to the node or relayed: relaying
/// cannot wait for the node's step, and must not pass on a forgery. The
/// node checks it again before it stores it (`ChatNode+Gossip.swift`), and
/// that check is answered from this one (`VerifiedSignatures`: the same
/// payload, verified by this process), not a second Ed25519 verify.
extension P2PService {
    static let overlayCapability = "overlay"
    /// Most actions carried out for one input: each answer is finite, this
    /// bounds a chain of answers to answers.
    static let maxOverlayActions = 4_096

    /// The hello's capabilities: the configured ones, plus `overlay` and
    /// `quietLinks` when the overlay runs.
    var announcedCapabilities: [String] {
        guard configuration.overlay != nil else { return configuration.capabilities }
        var capabilities = configuration.capabilities
        for added in [Self.overlayCapability, Self.quietCapability] where !capabilities.contains(added) {
            capabilities.append(added)
        }
        return capabilities
    }

    /// Whether the overlay runs above its threshold (bounded links, gossip).
    // These run per announcement on every tick and wake-up plan: they read
    // the state in place, through `inout` (`guard let`, or a method call
    // on the stored property, copied all of it: most of an idle node's
    // CPU with a hundred announcements).
    var overlayIsPartial: Bool { overlayLinks?.isFullMesh == false }

    /// The dial rule's gate (`dialDue`): whether announced peer `number` may be dialled now.
    func overlayPermitsDial(_ number: NodeNumber) -> Bool {
        Self.permitsDial(number, in: &overlayLinks, now: now)
    }

    /// Whether an overlay dial is waiting for `number` (dialled at once, whichever number is lower).
    func overlayWants(_ number: NodeNumber) -> Bool {
        Self.wants(number, in: &overlayLinks, now: now)
    }

    private static func permitsDial(_ number: NodeNumber, in state: inout OverlayLinks?, now: Duration) -> Bool {
        guard case .some = state else { return true }
        return state!.permitsDial(number) || state!.direct.isDialling(number, now: now)
    }

    private static func wants(_ number: NodeNumber, in state: inout OverlayLinks?, now: Duration) -> Bool {
        guard case .some = state else { return false }
        return state!.wanted[number] != nil || state!.direct.isDialling(number, now: now)
    }

    /// When the overlay next needs a tick, if it runs: its own next
    /// deadline, or an overlay dial's wait running out (a dial still
    /// "wanted" permits the transport to dial that peer again).
    var overlayNextTick: Duration? {
        guard var next = overlayLinks?.overlay.nextTick(after: now) else { return nil }
        if let wantedUntil = overlayLinks?.wanted.values.min() { next = min(next, wantedUntil) }
        // A link on demand is closed once idle (`closeIdleDirectLinks`, run by the tick).
        if let idleFrom = overlayLinks?.direct.links.values.map(\.lastTraffic).min(),
           let idle = configuration.overlay?.directIdle {
            next = min(next, max(idleFrom + idle, now))
        }
        return next
    }

    // MARK: Inputs

    func overlayPeerHeard(_ number: NodeNumber) {
        guard let state = overlayLinks, !state.legacy.contains(number) else { return }
        runOverlay { $0.peerHeard(number, now: $1) }
    }

    /// A link became the peer's established one (not a replacement).
    func overlayLinkUp(_ link: PeerLink, _ number: NodeNumber) {
        guard overlayLinks != nil else { return }
        let wanted = overlayLinks!.wanted.removeValue(forKey: number) != nil
        if link.onDemand {
            // The peer's dial on demand crossed our overlay dial and won:
            // the link is taken as the overlay's if the view needs it.
            if wanted, promotesOnDemand(number) { return promote(link, number) }
            // On demand: not the membership's to count, shuffle or drop.
            return directLinkUp(link, number)
        }
        if link.speaksOverlay {
            overlayLinks!.markOverlay(number)
            runOverlay { $0.linkUp(number, now: $1) }
            // A verified link is the best news of a peer: in a full mesh it
            // joins the view at once (not only at its next beacon), so the
            // views are ready, and connected, when the threshold is passed.
            overlayPeerHeard(number)
        } else {
            // Linked as without the overlay; not a candidate for its views.
            overlayLinks!.markLegacy(number)
            runOverlay { $0.linkDown(number, now: $1) }
        }
    }

    /// `link` took the place of `previous` to the same peer (the two ends
    /// keep the same one). Both ends see the same pair, so both settle the
    /// same way: a link on demand replacing an overlay link is promoted (the
    /// overlay's link is not lost to a DM), an overlay link replacing one
    /// on demand is the overlay's from now on.
    func overlayLinkReplaced(_ previous: PeerLink, by link: PeerLink, _ number: NodeNumber) {
        guard overlayLinks != nil, previous.onDemand != link.onDemand else { return }
        if link.onDemand {
            link.onDemand = false
            link.speaksOverlay = previous.speaksOverlay
        } else {
            overlayLinks!.direct.linkDown(number)
            overlayLinkUp(link, number)
        }
    }

    /// The peer's established link is gone.
    func overlayLinkDown(_ link: PeerLink, _ number: NodeNumber) {
        guard overlayLinks != nil else { return }
        overlayLinks!.wanted[number] = nil
        overlayLinks!.relay.forget(number)
        if link.onDemand { return overlayLinks!.direct.linkDown(number) }
        if link.speaksOverlay { runOverlay { $0.linkDown(number, now: $1) } }
    }

    /// A dial failed before its link was established (a duplicate that
    /// gave way to the peer's own dial is not a failure).
    func overlayDialFailed(_ number: NodeNumber, _ cause: LinkDropCause) {
        if case .superseded = cause { return }
        overlayLinks?.direct.dialFailed(number, now: now)
        guard overlayLinks?.wanted.removeValue(forKey: number) != nil else { return }
        runOverlay { $0.linkDown(number, now: $1) }
    }

    /// The overlay's timers (`Overlay.nextTick`), run from the service's tick.
    func tickOverlay() {
        closeIdleDirectLinks()
        guard let next = overlayNextTick, now >= next else {
            timer.overlayDue = overlayNextTick  // a direct link's traffic moved its idle deadline on
            return
        }
        let now = self.now
        overlayLinks!.wanted = overlayLinks!.wanted.filter { $0.value > now }
        // Known peers outlive silences as announcements do.
        overlayLinks!.overlay.peersMayBeSilent(for: core.announcementTimeout)
        runOverlay { $0.tick(now: $1) }
    }

    /// Whether a link on demand to `peer` is taken as an overlay link when
    /// the membership asks for one: only while the active view is empty. A
    /// node that comes back to peers holding DMs for it finds their dials on
    /// demand first, and would otherwise stay outside the overlay (no
    /// gossip, no catch-up) for as long as those links last; a node with
    /// neighbours leaves such links to the DMs, as the views were chosen.
    func promotesOnDemand(_ peer: NodeNumber) -> Bool {
        guard let state = overlayLinks, !state.isFullMesh else { return false }
        return state.overlay.membership.active.isEmpty
    }

    /// Takes on-demand `link` as the overlay's, in place (PROTOCOL.md,
    /// "Overlay", direct reach): its first overlay frame tells the peer,
    /// which promotes its end when that frame arrives (`promoteOnArrival`).
    /// An on-demand link's peer announced `overlay` (`admitsOnDemand`).
    func promote(_ link: PeerLink, _ number: NodeNumber) {
        logger.debug("overlay: the link on demand to \(number) becomes an overlay link")
        link.onDemand = false
        link.speaksOverlay = true
        overlayLinks!.direct.linkDown(number)
        overlayLinkUp(link, number)
    }

    /// An overlay frame on a link this end holds on demand: the peer
    /// promoted it. Promoted here too, so its frames are taken; the
    /// membership then answers the JOIN or NEIGHBOR as on any new link
    /// (and closes the link if it keeps none, as for any inbound link).
    func promoteOnArrival(_ link: PeerLink, _ number: NodeNumber) -> Bool {
        guard overlayLinks != nil, link.onDemand, !link.isClosed else { return false }
        promote(link, number)
        return true
    }

    /// An overlay frame on `link` (its peer announced the capability).
    /// Malformed ones count like malformed frames: a few are tolerated.
    func receiveOverlay(_ line: [UInt8], decoded: OverlayFrame? = nil, from peer: NodeNumber, on link: PeerLink) {
        let frame: OverlayFrame
        do {
            frame = try decoded ?? OverlayFrameCodec.decode(line).1
        } catch {
            stats.overlayMalformed += 1
            link.malformedCount += 1
            logger.debug("malformed overlay frame from \(peer): \(error)")
            if link.malformedCount > PeerLink.malformedLimit {
                drop(link, .violation("more than \(PeerLink.malformedLimit) malformed frames, last: \(error)"))
            }
            return
        }
        stats.overlayFramesReceived += 1
        switch frame {
        case .gossip: stats.gossipReceived += 1
        case .ihave: stats.ihavesReceived += 1
        case .graft: stats.graftsReceived += 1
        case .prune: stats.prunesReceived += 1
        default: break
        }
        if frame.isRelay { return receiveRelay(frame, from: peer) }
        runOverlay(verifying: true) { overlay, now, verify in overlay.received(frame, from: peer, now: now, verify: verify) }
    }

    /// A public message that came whole on its author's link while this
    /// node gossips (the author is still in a full mesh): relayed into the
    /// overlay as if gossiped to us, after the same signature check. The
    /// node already has the frame itself.
    func relayLive(_ payload: P2PPayload, from peer: NodeNumber) {
        let gossip = OverlayFrame.gossip(GossipMessage(hops: 1, message: payload))
        runOverlay(verifying: true, deliver: false) { overlay, now, verify in
            overlay.received(gossip, from: peer, now: now, verify: verify)
        }
    }

    /// Public messages the node stored from a catch-up: announced to the
    /// overlay's neighbours (`PeerTransport.spread`).
    public func spread(_ caughtUp: [P2PPayload]) {
        guard overlayIsPartial else { return }
        runOverlay { $0.announce(caughtUp, now: $1) }
    }

    /// This node's own public message while the overlay is partial: pushed by gossip.
    func publishByGossip(_ payload: P2PPayload) {
        stats.gossipPublished += 1
        runOverlay { $0.publish(payload, now: $1) }
    }

    // MARK: Carrying out

    private func runOverlay(_ step: (inout Overlay, Duration) -> [OverlayAction]) {
        guard overlayLinks != nil else { return }
        let actions = step(&overlayLinks!.overlay, now)
        perform(actions, deliver: true)
    }

    /// As `runOverlay`, handing the step the signature check: the
    /// author's (as for relayed history), never this node's own number.
    private func runOverlay(verifying: Bool, deliver: Bool = true,
                            _ step: (inout Overlay, Duration, (P2PPayload) -> Bool) -> [OverlayAction]) {
        guard overlayLinks != nil else { return }
        let verifier = messageVerifier, me = identity.number
        var refused = 0
        let actions = step(&overlayLinks!.overlay, now) { payload in
            let valid = payload.senderNumber != me && verifier.verify(payload).isValid
            if !valid { refused += 1 }
            return valid
        }
        if refused > 0 {
            stats.gossipRefused += refused
            logger.notice("refused \(refused) gossiped public message(s) whose signature does not hold")
        }
        perform(actions, deliver: deliver)
    }

    /// Carries out `actions` in order, and what they answer after them.
    private func perform(_ actions: [OverlayAction], deliver: Bool) {
        var queue = FIFOQueue<OverlayAction>()
        for action in actions { queue.append(action) }
        var left = Self.maxOverlayActions
        while left > 0, let action = queue.popFirst() {
            left -= 1
            for next in carryOut(action, deliver: deliver) { queue.append(next) }
        }
        overlayStepped()  // its next step may be due sooner than the timer
    }

    private func carryOut(_ action: OverlayAction, deliver: Bool) -> [OverlayAction] {
        switch action {
        case .send(let frame, let peer):
            sendOverlay(frame, to: peer)
        case .deliver(let gossip, let peer):
            if deliver {
                stats.gossipDelivered += 1
                deliverFrame(gossip.message, from: peer)
            }
        case .dial(let peer):
            logger.debug("overlay: link wanted to \(peer)")
            return overlayDial(peer)
        case .close(let peer):
            logger.debug("overlay: no link kept to \(peer)")
            overlayClose(peer)
        }
        return []
    }

    /// The overlay wants a link to `peer`: it is told at once if one is up
    /// (or cannot be: a peer that speaks no overlay, or one never heard);
    /// otherwise the dial waits for the link or its failure. In a full
    /// mesh the transport's own dial rule makes the link.
    private func overlayDial(_ peer: NodeNumber) -> [OverlayAction] {
        let now = self.now
        if let link = established[peer] {
            if link.onDemand, promotesOnDemand(peer) {
                link.onDemand = false
                link.speaksOverlay = true
                overlayLinks!.direct.linkDown(peer)
                overlayLinks!.markOverlay(peer)
                logger.debug("overlay: the link on demand to \(peer) becomes an overlay link")
            }
            return link.speaksOverlay ? overlayLinks!.overlay.linkUp(peer, now: now) : overlayLinks!.overlay.linkDown(peer, now: now)
        }
        guard core.announcements[peer] != nil, !overlayLinks!.legacy.contains(peer) else {
            return overlayLinks!.overlay.linkDown(peer, now: now)
        }
        overlayLinks!.wanted[peer] = now + (configuration.overlay?.linkDialTimeout ?? .seconds(10))
        if !overlayLinks!.isFullMesh { dialAnnouncedPeers(only: peer) }
        return []
    }

    /// The overlay gives up a link. Only above the threshold (in a full
    /// mesh the transport keeps every link) and never a link to a peer
    /// that speaks no overlay or a static peer.
    private func overlayClose(_ peer: NodeNumber) {
        guard overlayIsPartial, let link = established[peer], link.speaksOverlay, link.staticIndex == nil else { return }
        stats.overlayCloses += 1
        drop(link, .superseded("the overlay keeps no link to \(peer)"))
    }

    func sendOverlay(_ frame: OverlayFrame, to peer: NodeNumber) {
        guard let link = established[peer], link.speaksOverlay else { return }
        let millis = clock.nowMillis()
        let header = OverlayFrameCodec.Header(messageId: messageIDs.next(millis: millis), senderNumber: identity.number,
                                              senderNickname: identity.nickname, timestamp: millis)
        if write(Data(OverlayFrameCodec.encode(frame, header: header)), to: link) { stats.overlayFramesSent += 1 }
    }
}
