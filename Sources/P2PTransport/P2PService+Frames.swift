import ChatCore
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
                loop?.arm(link.fd, read: true)
                return
            case .endOfStream:
                drop(link, .endOfStream)
                return
            case .bytes(let count):
                do {
                    try link.lines.append(readBuffer[0..<count])
                } catch {
                    stats.overlong += 1
                    drop(link, .violation("\(error)"))
                    return
                }
                decodeFrames(on: link)
                if link.isClosed || link.isThrottled || waitsForNode(link) { return }
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
        guard !paused else { return }
        for link in links.values where link.peer != nil && !link.isClosed && !link.isThrottled {
            loop?.arm(link.fd, read: true)
        }
    }

    func waitsForNode(_ link: PeerLink) -> Bool { readingPaused && link.peer != nil }

    /// Decodes the complete lines received so far, as far as the link's
    /// budget (`PeerLimits.framesPerSecond`) pays for them. A line it cannot
    /// pay for waits, and the link is not read meanwhile: the peer's own
    /// TCP buffers hold the rest, so a flood costs the node neither memory
    /// nor more than its share of time.
    private func decodeFrames(on link: PeerLink) {
        while !link.isClosed {
            let line: ArraySlice<UInt8>
            if let unpaid = link.unpaidLine {
                line = unpaid[...]
            } else if let next = link.lines.nextLine() {
                line = next
            } else {
                return
            }
            guard link.budget.take(configuration.limits.frameCost(byteCount: line.count), at: now) else {
                if link.unpaidLine == nil {
                    link.unpaidLine = Array(line)
                    stats.rateLimited += 1
                }
                link.isThrottled = true
                return
            }
            link.unpaidLine = nil
            let payload: P2PPayload
            do {
                payload = try P2PFrameCodec.decodeLine(line, using: link.decoder)
            } catch {
                rejectMalformed(error, on: link)
                continue
            }
            link.lastReceivedAt = now
            switch link.phase {
            case .connecting:
                return // unreachable: reads are armed after the connect
            case .handshaking:
                handleHello(payload, on: link)
            case .held:
                // The dialler speaks again only after our hello.
                stats.badHello += 1
                drop(link, .violation("\(payload.type) frame before the hello was answered"))
            case .established:
                handleFrame(payload, on: link)
            }
        }
    }

    /// A malformed line: fatal before the handshake, tolerated a few times
    /// after it (a peer with one bad frame is not worth a reconnect).
    private func rejectMalformed(_ error: FrameError, on link: PeerLink) {
        stats.malformed += 1
        guard link.phase == .established else {
            stats.badHello += 1
            drop(link, .violation("first frame is not a hello: \(error)"))
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
    private func handleFrame(_ payload: P2PPayload, on link: PeerLink) {
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
        noteIdentity(of: payload, on: link)
        switch payload.type {
        case .hello:
            stats.lateHello += 1
        case .ping:
            write(P2PFrameCodec.encode(control(.pong, refId: payload.messageId)), to: link)
        case .pong:
            if let probe = link.probe, payload.refId == probe.ping {
                // Alive: whoever else announced this number is refused.
                link.probe = nil
                pendingClaims[peer.number] = nil
                stats.identityConflicts += 1
                logger.notice("\(peer.number) still answers on its link; another instance claiming its number is refused")
                refuseHeldLinks(for: peer.number)
            }
        case .leave:
            drop(link, .left)
        case .unknown:
            stats.unknownType += 1
            deliver(payload, from: peer.number)
        case .publicMessage, .directMessage, .dmRequest, .dmAccept, .dmDecline, .ack,
             .historyRequest, .historyReply:
            deliver(payload, from: peer.number)
        }
    }

    private func deliver(_ payload: P2PPayload, from number: NodeNumber) {
        stats.framesDelivered += 1
        emit(.received(payload, from: number))
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
