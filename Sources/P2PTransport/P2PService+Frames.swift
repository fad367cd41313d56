import ChatCore
import ChatWire
import ChatCrypto
import ChatOverlay
import Foundation

extension P2PService {
    /// Most reads per readiness report, so one busy link cannot starve the
    /// others (the loop reports it again at once if more is waiting).
    static let readsPerWakeup = 4

    func readFrames(from link: PeerLink) {
        // A throttled link is read again once its budget refills (`tick`).
        guard !link.isThrottled, !waitsForNode(link) else { return }
        for _ in 0..<Self.readsPerWakeup {
            let outcome: ReadOutcome
            do {
                outcome = try Socket.receive(link.fd, into: &readBuffer)
            } catch {
                drop(link, .ioError(error))
                return
            }
            switch outcome {
            case .wouldBlock:
                if let failure = link.writeFailure {
                    drop(link, .ioError(failure))  // read to its end, no leave in it
                    return
                }
                loop?.arm(link.fd, read: true)
                return
            case .endOfStream:
                drop(link, .endOfStream)
                return
            case .bytes(let count):
                if link.direction == .inbound, link.receivedNothing {
                    link.receivedNothing = false
                    if readBuffer[0] == UInt8(ascii: "{") {
                        refuseVersion1(on: link)
                        return
                    }
                }
                do {
                    try link.records.append(readBuffer[0..<count])
                } catch {
                    countMalformedPrefix(on: link)
                    drop(link, .violation("\(error)"))
                    return
                }
                decodeFrames(on: link)
                if link.isClosed || link.isThrottled || waitsForNode(link) { return }
                // A short read drained the socket: re-arm rather than ask
                // again for the would-block (one call less per message;
                // the re-arm reports at once whatever came meanwhile).
                if count < readBuffer.count { break }
            }
        }
        loop?.arm(link.fd, read: true)
    }

    /// A throttled link whose budget may have refilled: decodes what it
    /// holds and, if the budget lasts, reads again.
    func resumeReading(_ link: PeerLink) {
        guard link.isThrottled, !link.isClosed else { return }
        link.isThrottled = false
        decodeFrames(on: link)
        if !link.isClosed, !link.isThrottled, !waitsForNode(link) { loop?.arm(link.fd, read: true) }
    }

    /// Backpressure from the node: while paused, linked peers are not read
    /// (handshakes still are), as a throttled link is not.
    public func pauseReading(_ paused: Bool) {
        guard paused != readingPaused else { return }
        readingPaused = paused
        replanWake()
        guard !paused else { return }
        for link in links.values where link.peer != nil && !link.isClosed && !link.isThrottled {
            loop?.arm(link.fd, read: true)
        }
    }

    func waitsForNode(_ link: PeerLink) -> Bool { readingPaused && link.peer != nil }

    /// Handles the complete handshake messages and records received so
    /// far, as far as the link's budget (`PeerLimits.framesPerSecond`) pays
    /// for the frames. A frame it cannot pay for waits, and the link is not
    /// read meanwhile: the peer's own TCP buffers hold the rest, so a flood
    /// costs the node neither memory nor more than its share of time.
    private func decodeFrames(on link: PeerLink) {
        defer { flushDelivered() }
        while !link.isClosed {
            let plaintext: [UInt8]
            if let unpaid = link.unpaidLine {
                plaintext = unpaid
            } else {
                // A record is opened straight from the decoder's buffer; a
                // handshake message is copied out for the handshake.
                let next: Result<[UInt8], CryptoError>?
                do {
                    next = try link.records.withNextFrame { body in
                        guard link.transport != nil else { return .success(Array(body)) }
                        return Result { () throws(CryptoError) in try link.transport!.open(body) }
                    }
                } catch {
                    countMalformedPrefix(on: link)
                    drop(link, .violation("\(error)"))
                    return
                }
                guard let next else { return }
                guard link.transport != nil else {
                    core.noteHandshakeProgress(link.id, at: now)
                    // A handshake message is never a failure here: `.success` above.
                    if case .success(let message) = next { handleHandshakeMessage(message, on: link) }
                    continue
                }
                switch next {
                case .success(let opened):
                    plaintext = opened
                case .failure(let error):
                    stats.recordFailures += 1
                    drop(link, .violation("a record did not open (tampered, replayed or out of order): \(error)"))
                    return
                }
            }
            guard link.budget.take(configuration.limits.frameCost(byteCount: plaintext.count), at: now) else {
                if link.unpaidLine == nil {
                    link.unpaidLine = plaintext
                    stats.rateLimited += 1
                }
                link.isThrottled = true
                return
            }
            link.unpaidLine = nil
            let payload: P2PPayload
            let overlay = overlayLinks == nil ? nil : Self.overlayFrame(plaintext)
            if let overlay {
                payload = overlay.carrier
            } else {
                do {
                    payload = try P2PFrameCodec.decode(plaintext, using: link.decoder)
                } catch {
                    rejectMalformed(error, on: link)
                    continue
                }
            }
            stats.framesRead += 1
            switch core.noteReceived(link.id, at: now) {
            case nil, .connecting:
                return // unreachable: reads are armed after the connect
            case .handshaking:
                // Only a dialler gets here: the acceptor's first record
                // says it accepted the link.
                acceptanceArrived(on: link)
                if phase(of: link) == .established { handleFrame(payload, on: link, line: plaintext, overlay: overlay?.frame) }
            case .held:
                // The dialler speaks only after the acceptor's first record.
                stats.badHello += 1
                drop(link, .violation("a \(payload.type) frame before the link was accepted"))
            case .established, .retiring:
                handleFrame(payload, on: link, line: plaintext, overlay: overlay?.frame)
            }
        }
    }

    /// An overlay frame read by the overlay's own parser, with the frame's
    /// common fields as the payload the link's rules look at (sender, id,
    /// type), or nil: any other frame, and any the parser or the common
    /// fields' rules refuse, go through the generic decoder as before.
    static func overlayFrame(_ plaintext: [UInt8]) -> (carrier: P2PPayload, frame: OverlayFrame)? {
        guard let (header, type, frame) = OverlayFrameCodec.decodeIfOverlay(plaintext) else { return nil }
        let carrier = P2PPayload(type: PayloadType(name: type), messageId: header.messageId, senderNumber: header.senderNumber,
                                 senderNickname: header.senderNickname, timestamp: header.timestamp)
        guard (try? P2PFrameCodec.validateEmbedded(carrier)) != nil else { return nil }
        return (carrier, frame)
    }

    /// A length prefix out of bounds: a broken handshake or a broken link.
    private func countMalformedPrefix(on link: PeerLink) {
        if link.transport == nil { stats.handshakeFailures += 1 } else { stats.malformed += 1 }
    }

    /// The first bytes are a JSON line: a protocol v1 node. It gets one v1
    /// line naming both versions (which a v1 node logs as a refused hello)
    /// and the connection closes; the log names it once per address.
    private func refuseVersion1(on link: PeerLink) {
        stats.versionRefusals += 1
        if warnedVersion1.isFirst(link.remote.address) {
            logger.warning("a protocol v1 node at \(link.remote.host) (this node speaks protocol \(P2PPayload.protocolVersion) only); refused")
        }
        var refusal = control(.unknown("versionRefused"))
        refusal.content = "this node speaks lanchat protocol \(P2PPayload.protocolVersion) (Noise-encrypted links) only; protocol 1 is refused"
        let line = P2PFrameCodec.encode(refusal)
        _ = line.withUnsafeBytes { raw in try? Socket.send(link.fd, raw) }
        drop(link, .superseded("protocol v1 refused"))
    }

    /// A malformed frame: fatal before the link is accepted, tolerated a
    /// few times after (a peer with one bad frame is not worth a reconnect).
    private func rejectMalformed(_ error: FrameError, on link: PeerLink) {
        stats.malformed += 1
        guard phase(of: link).map({ $0 == .established || $0 == .retiring }) ?? false else {
            stats.badHello += 1
            drop(link, .violation("first frame is malformed: \(error)"))
            return
        }
        link.malformedCount += 1
        logger.debug("malformed frame from \(link.peerNumber.map(String.init(describing:)) ?? "?"): \(error)")
        if link.malformedCount > PeerLink.malformedLimit {
            drop(link, .violation("more than \(PeerLink.malformedLimit) malformed frames, last: \(error)"))
        }
    }

    /// A frame on an established link. Only frames whose sender is the
    /// link's identity get through; link control (hello, ping, pong, leave)
    /// is handled here; everything else, unknown types included, goes to
    /// the node.
    private func handleFrame(_ payload: P2PPayload, on link: PeerLink, line: [UInt8], overlay: OverlayFrame?) {
        guard let peer = link.peer else { return }
        guard payload.senderNumber == peer.number else {
            stats.spoofed += 1
            drop(link, .violation("frame claims sender \(payload.senderNumber) on the link of \(peer.number)"))
            return
        }
        // A repeated id is a replay (or a confused peer); only a DM retry
        // may repeat, so the node can acknowledge it again.
        let isDirectMessageRetry = payload.type.carriesChatText && payload.type.isDirect
        if !isDirectMessageRetry, !link.recentIDs.insert(payload.messageId) {
            stats.duplicateFrames += 1
            return
        }
        // Overlay frames are the shell's (they carry no stage: not names to note).
        if case .unknown(let name) = payload.type, overlayLinks != nil, name.hasPrefix("overlay"),
           link.speaksOverlay || promoteOnArrival(link, peer.number) {
            receiveOverlay(line, decoded: overlay, from: peer.number, on: link)
            return
        }
        if link.onDemand {
            // Only direct frames cross a link opened on demand.
            guard Self.carriesOnDemand(payload.type) else {
                stats.directOffTopic += 1
                return
            }
            if payload.type.isDirect { noteDirectTraffic(on: link, peer.number) }
        }
        noteIdentity(of: payload, on: link)
        switch payload.type {
        case .hello:
            stats.lateHello += 1
        case .ping:
            notePingReceived(payload, on: link)
            write(ControlFrame.encode(control(.pong, refId: payload.messageId)), to: link)
        case .pong:
            if core.notePong(link.id, refId: payload.refId) {
                // Alive: whoever else announced this number is refused.
                core.claimRefused(peer.number)
                stats.identityConflicts += 1
                logger.notice("\(peer.number) still answers on its link; another instance claiming its number is refused")
                refuseHeldLinks(for: peer.number)
            }
        case .leave:
            drop(link, .left)
        case .unknown:
            stats.unknownType += 1
            deliverFrame(payload, from: peer.number)
        case .publicMessage:
            deliverFrame(payload, from: peer.number)
            if link.speaksOverlay, overlayIsPartial { relayLive(payload, from: peer.number) }
        case .directMessage, .dmRequest, .dmAccept, .dmDecline, .ack,
             .historyRequest, .historyReply, .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone:
            deliverFrame(payload, from: peer.number)
        }
    }

    /// Hands a frame to the node, batched per link read (`flushDelivered`).
    func deliverFrame(_ payload: P2PPayload, from number: NodeNumber) {
        stats.framesDelivered += 1
        if deliveredFrom != number { flushDelivered() }
        deliveredFrom = number
        delivered.append(payload)
    }

    /// Every frame carries its sender's current nickname and stage; a change
    /// (checked like a beacon's names) is reported as `.peerUpdated`.
    private func noteIdentity(of payload: P2PPayload, on link: PeerLink) {
        guard var peer = link.peer, payload.senderNickname != peer.nickname || payload.senderStage != peer.stage,
              let nickname = try? NodeName.validated(payload.senderNickname) else { return }
        var stage: String?
        if let claimed = payload.senderStage {
            guard let valid = try? NodeName.validated(claimed) else { return }
            stage = valid
        }
        guard nickname != peer.nickname || stage != peer.stage else { return }
        peer.nickname = nickname
        peer.stage = stage
        link.peer = peer
        emit(.peerUpdated(peer))
    }
}
