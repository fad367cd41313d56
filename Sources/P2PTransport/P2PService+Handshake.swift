import ChatCore
import Foundation

extension P2PService {
    /// The first frame on a link. The dialler sends its hello first; the
    /// acceptor checks it, applies the tie-break, and answers with its own
    /// hello or closes. A dialler's link is up when the answer arrives.
    func handleHello(_ hello: P2PPayload, on link: PeerLink) {
        guard let peer = validatedPeer(from: hello, on: link) else {
            stats.badHello += 1
            drop(link, .violation("first frame is not a valid hello (\(hello.type))"))
            return
        }
        if peer.number == identity.number {
            if peer.instanceId == instance { markStaticSelfDials() }
            drop(link, .superseded(peer.instanceId == instance ? "dialled itself" : "a peer uses this node's number \(peer.number)"))
            return
        }
        link.peer = peer
        link.listenEndpoint = hello.listenPort.map { IPv4Endpoint(address: link.remote.address, port: $0) }
        if let index = link.staticIndex { staticPeers[index].number = peer.number }
        switch link.direction {
        case .inbound: admitInbound(link, peer: peer)
        case .outbound: admitOutbound(link, peer: peer)
        }
    }

    /// What an established link to the same number means for a new link.
    private enum Standing {
        /// No established link, or the new one wins the tie-break.
        case clear
        /// The established link wins; the new one is a duplicate.
        case duplicate
        /// The established link belongs to another instance of the number.
        case conflict(PeerLink)
    }

    private func standing(of peer: PeerInfo, candidate: LinkDirection) -> Standing {
        guard let current = established[peer.number] else { return .clear }
        guard current.peer?.instanceId == peer.instanceId else { return .conflict(current) }
        let verdict = LinkArbiter.resolve(local: identity.number, remote: peer.number,
                                          existing: current.direction, candidate: candidate)
        return verdict == .keepExisting ? .duplicate : .clear
    }

    private func admitInbound(_ link: PeerLink, peer: PeerInfo) {
        switch standing(of: peer, candidate: .inbound) {
        case .conflict(let current):
            // A new instance while the old link may be alive: hold the new
            // link until a ping tells (see `startProbe`).
            link.phase = .held
            startProbe(current)
            return
        case .duplicate:
            stats.duplicateLinks += 1
            drop(link, .superseded("the link dialled by the lower number stays"))
            return
        case .clear:
            break
        }
        if established[peer.number] == nil, let pending = pendingDial(to: peer, besides: link) {
            stats.duplicateLinks += 1
            if LinkArbiter.resolve(local: identity.number, remote: peer.number,
                                   existing: .outbound, candidate: .inbound) == .keepExisting {
                drop(link, .superseded("our own dial to \(peer.number) is the one that stays"))
                return
            }
            drop(pending, .superseded("\(peer.number)'s dial is the one that stays"))
        }
        sendHello(on: link)
        if !link.isClosed { establish(link, peer: peer) }
    }

    private func admitOutbound(_ link: PeerLink, peer: PeerInfo) {
        switch standing(of: peer, candidate: .outbound) {
        case .conflict(let current):
            drop(link, .superseded("\(peer.number) is linked from another instance"))
            startProbe(current)
        case .duplicate:
            stats.duplicateLinks += 1
            drop(link, .superseded("the link dialled by the lower number stays"))
        case .clear:
            establish(link, peer: peer)
        }
    }

    /// Our own unfinished dial to the node that just dialled us, known by
    /// the number we expect there or, for static dials whose number is not
    /// known yet, by the address it listens on.
    private func pendingDial(to peer: PeerInfo, besides link: PeerLink) -> PeerLink? {
        links.values.first {
            $0 !== link && $0.direction == .outbound && $0.phase != .established
                && ($0.peerNumber == peer.number || $0.remote.description == peer.address)
        }
    }

    /// Makes `link` the peer's one link. Replacing a link to the same
    /// instance is silent (the node already knows the peer).
    private func establish(_ link: PeerLink, peer: PeerInfo) {
        link.phase = .established
        let previous = established[peer.number]
        established[peer.number] = link
        directory.linked(peer.number)
        for index in staticPeers.indices where staticPeers[index].number == peer.number {
            staticPeers[index].backoff.reset()
        }
        if let previous, previous !== link {
            stats.duplicateLinks += 1
            release(previous, graceful: true)
            if previous.peer != peer { emit(.peerUpdated(peer)) }
        } else {
            logger.info("linked to \(peer.nickname)#\(peer.number.shortTag) (\(peer.number)) at \(peer.address)")
            emit(.peerJoined(peer))
        }
        refuseHeldLinks(for: peer.number)
    }

    /// The hello's identity, or nil if it is not an acceptable hello.
    private func validatedPeer(from hello: P2PPayload, on link: PeerLink) -> PeerInfo? {
        guard hello.type == .hello, let instanceId = hello.instanceId, InstanceID.isValid(instanceId),
              let listenPort = hello.listenPort,
              let nickname = try? NodeName.validated(hello.senderNickname) else { return nil }
        var stage: String?
        if let claimed = hello.senderStage {
            guard let valid = try? NodeName.validated(claimed) else { return nil }
            stage = valid
        }
        let address = IPv4Endpoint(address: link.remote.address, port: listenPort)
        return PeerInfo(number: hello.senderNumber, nickname: nickname, stage: stage,
                        instanceId: instanceId, address: address.description)
    }

    // MARK: Restarts and conflicts

    /// Pings `link` to learn whether it is alive while another instance
    /// claims its peer's number. A pong within `restartProbeTimeout` keeps
    /// it (the claim is refused); silence means the peer restarted.
    func startProbe(_ link: PeerLink) {
        guard link.probe == nil, !link.isClosed else { return }
        let ping = control(.ping)
        link.probe = (ping.messageId, now + configuration.restartProbeTimeout)
        write(P2PFrameCodec.encode(ping), to: link)
    }

    /// The old link answered (or a link is up): the held links of another
    /// instance are refused.
    func refuseHeldLinks(for number: NodeNumber) {
        for held in links.values where held.phase == .held && held.peer?.number == number {
            drop(held, .superseded("\(number) is still linked from another instance"))
        }
    }

    /// The old link is gone: the newest held link from the new instance
    /// takes its place.
    func admitHeldLink(for number: NodeNumber) {
        let held = links.values.filter { $0.phase == .held && $0.peer?.number == number }.sorted { $0.id < $1.id }
        guard let newest = held.last, let peer = newest.peer else { return }
        for older in held.dropLast() { drop(older, .superseded("a newer link from \(number) arrived")) }
        sendHello(on: newest)
        if !newest.isClosed { establish(newest, peer: peer) }
    }

    /// Our own hello came back: a static peer address points at this node.
    private func markStaticSelfDials() {
        for link in links.values where link.direction == .outbound && link.phase == .handshaking {
            guard let index = link.staticIndex, link.remote.port == port else { continue }
            staticPeers[index].isSelf = true
            logger.warning("static peer \(staticPeers[index].address) is this node itself; not dialling it")
        }
    }
}
