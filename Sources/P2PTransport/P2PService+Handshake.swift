import ChatCore
import ChatCrypto
import Foundation

extension P2PService {
    /// The connection is up: the dialler (Noise initiator) sends message 1.
    /// An acceptor starts its side when message 1 arrives.
    func beginHandshake(on link: PeerLink) {
        guard link.direction == .outbound else { return }
        do {
            var handshake = try makeHandshake(.initiator, on: link)
            writeHandshakeMessage(try handshake.start(), to: link)
            link.handshake = handshake
        } catch {
            logger.error("could not start a handshake: \(error)")
            drop(link, .superseded("no handshake: \(error)"))
        }
    }

    private func makeHandshake(_ role: NoiseHandshake.Role, on link: PeerLink? = nil) throws(CryptoError) -> LinkHandshake {
        var hello = control(.hello)
        hello.instanceId = instance
        hello.listenPort = port
        hello.capabilities = capabilities(on: link)
        var bytes = [UInt8](ControlFrame.encode(hello))
        bytes.removeLast() // the newline: a record holds one frame, no line end
        let credential: HandshakeIdentity.Credential
        if let made = handshakeCredential { credential = made } else { credential = try HandshakeIdentity.Credential(identity: identityKey) }
        return try LinkHandshake(role: role, credential: credential, groupSecret: configuration.groupSecret, hello: bytes)
    }

    /// One handshake message from the peer (docs/PROTOCOL.md, 3.2 "The handshake and the hello").
    func handleHandshakeMessage(_ message: [UInt8], on link: PeerLink) {
        if link.handshake == nil, link.direction == .inbound, link.peer == nil {
            do {
                link.handshake = try makeHandshake(.responder)
            } catch {
                logger.error("could not answer a handshake: \(error)")
                drop(link, .superseded("no handshake: \(error)"))
                return
            }
        }
        guard var handshake = link.handshake else {
            stats.handshakeFailures += 1
            drop(link, .violation("a handshake message after the handshake"))
            return
        }
        let progress: LinkHandshake.Progress
        do {
            progress = try handshake.read(message)
        } catch {
            link.handshake = nil
            handshakeFailed(error, on: link)
            return
        }
        switch progress {
        case .reply(let reply):
            link.handshake = handshake
            writeHandshakeMessage(reply, to: link)
        case .peer(let verified, let reply):
            link.handshake = nil
            link.transport = handshake.transport
            admitVerified(verified, reply: reply, on: link)
        }
    }

    /// Counts and explains a failed handshake, then closes the connection.
    private func handshakeFailed(_ failure: LinkHandshake.Failure, on link: PeerLink) {
        switch failure {
        case .crypto:
            stats.handshakeFailures += 1
        case .groupMismatch(let why):
            stats.handshakeFailures += 1
            if warnedGroupMismatch.isFirst(link.remote.address) {
                logger.warning("a node with a different group secret at \(link.remote.host) (\(why)); not linked")
            }
            drop(link, .superseded(failure.description))
            return
        case .badHello:
            stats.badHello += 1
        case .claimedNumber:
            stats.claimedNumbers += 1
        }
        drop(link, .violation(failure.description))
    }

    /// The peer proved its key. The dialler answers with message 3 and
    /// waits for the acceptor's first record; the acceptor applies the
    /// link rules and accepts (its first record) or closes.
    private func admitVerified(_ verified: LinkHandshake.Peer, reply: [UInt8]?, on link: PeerLink) {
        guard let peer = validatedPeer(from: verified, on: link) else {
            stats.badHello += 1
            drop(link, .violation("the hello in the handshake is not a valid hello"))
            return
        }
        if peer.number == identity.number {
            if peer.instanceId == instance { markStaticSelfDials() }
            drop(link, .superseded(peer.instanceId == instance ? "dialled itself" : "another process has this node's identity key"))
            return
        }
        link.peer = peer
        link.speaksOverlay = verified.hello.capabilities?.contains(Self.overlayCapability) ?? false
        link.speaksQuiet = verified.hello.capabilities?.contains(Self.quietCapability) ?? false
        guard admitsOnDemand(link, capabilities: verified.hello.capabilities ?? []) else {
            drop(link, .superseded("on-demand links full"))
            return
        }
        link.listenEndpoint = verified.hello.listenPort.map { IPv4Endpoint(address: link.remote.address, port: $0) }
        let listen = link.listenEndpoint ?? IPv4Endpoint(address: link.remote.address, port: 0)
        // The acceptor's link rules decide now; the dialler's once accepted.
        perform(core.handle(.peerVerified(link: link.id, number: peer.number, instance: peer.instanceId, listen: listen)))
        if link.direction == .outbound, let reply { writeHandshakeMessage(reply, to: link) }
    }

    /// The acceptor's first record arrived on our dial: the link is
    /// accepted there; the link rules decide here too.
    func acceptanceArrived(on link: PeerLink) {
        perform(core.handle(.acceptanceArrived(link: link.id)))
    }

    /// Makes `link` the peer's one link, as the core decided
    /// (`TransportAction.establish`). Replacing a link to the same
    /// instance is silent (the node already knows the peer).
    func establish(_ link: PeerLink, peer: PeerInfo) {
        let previous = core.establish(link.id, at: now).flatMap { links[$0] }
        if let previous {
            stats.duplicateLinks += 1
            moveUnsentFrames(from: previous, to: link)
            retire(previous, for: link)
            overlayLinkReplaced(previous, by: link, peer.number)
            if previous.peer != peer { emit(.peerUpdated(peer)) }
        } else {
            logger.info("linked to \(peer.nickname)#\(peer.number.shortTag) (\(peer.number)) at \(peer.address)")
            emit(.peerJoined(peer))
        }
        refuseHeldLinks(for: peer.number)
        if previous == nil { overlayLinkUp(link, peer.number) }
    }

    /// The verified peer as `PeerInfo`, or nil if its hello lacks what a
    /// hello must carry (its number was checked against its key already).
    private func validatedPeer(from verified: LinkHandshake.Peer, on link: PeerLink) -> PeerInfo? {
        let hello = verified.hello
        guard let instanceId = hello.instanceId, InstanceID.isValid(instanceId),
              let listenPort = hello.listenPort,
              let nickname = try? NodeName.validated(hello.senderNickname) else { return nil }
        var stage: String?
        if let claimed = hello.senderStage {
            guard let valid = try? NodeName.validated(claimed) else { return nil }
            stage = valid
        }
        let address = IPv4Endpoint(address: link.remote.address, port: listenPort)
        return PeerInfo(number: verified.number, nickname: nickname, stage: stage, instanceId: instanceId,
                        address: address.description, identityKey: Data(verified.key.rawValue).base64EncodedString(), fingerprint: verified.key.fingerprint)
    }

    /// A replaced link finishes what it had sealed and is read until the
    /// peer closes it (or the handshake timeout): the frames the peer wrote
    /// on it before it switched still arrive.
    ///
    /// Only the side that switches second sends FIN: the dialler of the
    /// new link, which switches when the acceptor's first record arrives,
    /// after the acceptor switched. An earlier FIN would reach the dialler
    /// on its still current link and read as the peer leaving.
    /// (The core retired it already: `TransportCore.establish`.)
    private func retire(_ link: PeerLink, for successor: PeerLink) {
        link.finOnDrain = successor.direction == .outbound
        flush(link)
    }

    // MARK: Restarts and conflicts

    /// Pings `link` to learn whether it is alive while another instance
    /// claims its peer's number. A pong within `restartProbeTimeout` keeps
    /// it (the claim is refused); silence means the peer restarted.
    func startProbe(_ link: PeerLink) {
        guard !link.isClosed else { return }
        // An ordinary ping, even on a quiet link: the acceptor then expects
        // ordinary keepalives, so this end's next ping comes at the
        // ordinary interval (noted as an ordinary ping).
        let ping = control(.ping)
        guard core.startProbe(link.id, ping: ping.messageId, at: now) else { return }
        if link.direction == .outbound { core.noteDialerPing(link.id, at: now, quiet: false) }
        write(ControlFrame.encode(ping), to: link)
    }

    /// The old link answered (or a link is up): the held links of another
    /// instance are refused.
    func refuseHeldLinks(for number: NodeNumber) {
        perform(core.refuseHeld(for: number))
    }

    /// Our own hello came back: a static peer address points at this node.
    private func markStaticSelfDials() {
        for address in core.dialledItself(listeningOn: port) {
            logger.warning("static peer \(address) is this node itself; not dialling it")
        }
    }
}
