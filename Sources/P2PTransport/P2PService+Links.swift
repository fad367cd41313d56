import ChatCore
import ChatCrypto
import Foundation

extension P2PService {
    // MARK: Opening

    /// Dials `endpoint`. `expecting` is the number a beacon announced there;
    /// `staticIndex` marks a static peer's dial.
    func dial(_ endpoint: IPv4Endpoint, expecting: NodeNumber?, staticIndex: Int?) {
        guard let loop else { return }
        // The core's dials fit `maxLinks` already; this guards the others (tests).
        guard core.canOpenLink else {
            stats.deferredDials += 1
            perform(core.handle(.dialFailed(expecting: expecting, staticIndex: staticIndex, at: now)))
            return
        }
        let connection: (fd: Int32, inProgress: Bool)
        do {
            connection = try Socket.connect(to: endpoint)
        } catch {
            stats.dialFailures += 1
            logger.debug("dial \(endpoint) failed: \(error)")
            perform(core.handle(.dialFailed(expecting: expecting, staticIndex: staticIndex, at: now)))
            return
        }
        let id = core.openDial(to: endpoint, expecting: expecting, staticIndex: staticIndex, at: now)
        let link = PeerLink(id: id, fd: connection.fd, direction: .outbound, remote: endpoint,
                            queueLimit: configuration.maxQueuedBytesPerLink, limits: configuration.limits)
        link.expectedNumber = expecting
        link.staticIndex = staticIndex
        link.onDemand = staticIndex == nil && expecting.map(diallingOnDemand) ?? false
        links[link.id] = link
        stats.linksDialled += 1
        loop.register(link.fd, token: link.id)
        logger.debug("dialling \(endpoint)\(expecting.map { " for \($0)" } ?? "")")
        if connection.inProgress {
            loop.arm(link.fd, write: true)
        } else {
            finishConnect(link)
        }
    }

    /// The non-blocking connect finished: on success the dialler speaks
    /// first, with handshake message 1.
    func finishConnect(_ link: PeerLink) {
        let error = Socket.pendingError(link.fd)
        guard error == 0 else {
            drop(link, .ioError(Socket.failure("connect \(link.remote)", error)))
            return
        }
        core.noteConnected(link.id)
        beginHandshake(on: link)
        if !link.isClosed { loop?.arm(link.fd, read: true) }
    }

    func acceptLinks() {
        guard let loop else { return }
        for _ in 0..<32 {
            let accepted: (fd: Int32, peer: IPv4Endpoint)?
            do {
                accepted = try Socket.accept(listener)
            } catch {
                // EMFILE and the like: try again on the next readiness.
                logger.warning("accept: \(error)")
                return
            }
            guard let (fd, remote) = accepted else { return }
            for action in core.handle(.connectionArrived(from: remote, at: now)) {
                switch action {
                case .accept(let id):
                    let link = PeerLink(id: id, fd: fd, direction: .inbound, remote: remote,
                                        queueLimit: configuration.maxQueuedBytesPerLink, limits: configuration.limits)
                    links[link.id] = link
                    stats.linksAccepted += 1
                    loop.register(fd, token: link.id)
                    loop.arm(fd, read: true)
                    logger.debug("accepted a connection from \(remote)")
                case .refuse(let refusal):
                    // Counted here, not inside the log line (built only when logged).
                    let why = explain(refusal)
                    logger.debug("refused a connection from \(remote): \(why)")
                    Socket.close(fd)
                default:
                    perform(action)
                }
            }
        }
    }

    // MARK: Output

    /// Queues `frame` (one encoded payload) for the peer and writes what
    /// the socket takes now; frames are sealed into records only as the
    /// socket takes them. False if the link is closed, has no keys yet, or
    /// was cut because the frame did not fit its queue. `flushNow` false:
    /// the caller flushes the link itself after queueing more (a batch).
    @discardableResult
    func write(_ frame: Data, to link: PeerLink, flushNow: Bool = true) -> Bool {
        guard !link.isClosed, link.transport != nil, link.writeFailure == nil, core.phase(of: link.id) != .retiring else { return false }
        let wasIdle = link.queuedByteCount == 0
        guard link.queuedByteCount + frame.count <= configuration.maxQueuedBytesPerLink, link.unsealed.enqueue(frame) else {
            stats.queueOverflow += 1
            drop(link, .timedOut("more than \(configuration.maxQueuedBytesPerLink) bytes queued; the peer is not reading"))
            return false
        }
        stats.framesSent += 1
        core.noteSent(link.id, at: now, wasIdle: wasIdle)
        // A busy queue is already waiting for writability; only an idle one
        // needs a push.
        if wasIdle, flushNow { flush(link) }
        return !link.isClosed
    }

    /// Queues one handshake message, length-prefixed, and writes it.
    func writeHandshakeMessage(_ message: [UInt8], to link: PeerLink) {
        guard !link.isClosed else { return }
        guard let framed = try? RecordFrameDecoder.frame(message), link.output.enqueue(Data(framed)) else {
            drop(link, .superseded("a handshake message of \(message.count) bytes did not fit"))
            return
        }
        core.noteSent(link.id, at: now, wasIdle: true)
        flush(link)
    }

    /// Writes queued output until the socket would block, then asks the
    /// poll loop to say when it can take more.
    func flush(_ link: PeerLink) {
        let phase = core.phase(of: link.id)
        guard phase != .connecting else { return }
        while !link.isClosed {
            if link.output.isEmpty { sealPending(on: link) }
            guard let chunk = link.output.nextChunk else {
                if phase == .retiring, link.finOnDrain {
                    // All it had is written: FIN tells the peer this link is done.
                    link.finOnDrain = false
                    Socket.shutdownWrite(link.fd)
                }
                return
            }
            let result = chunk.withUnsafeBytes { raw in
                Result { () throws(TransportError) -> Int? in try Socket.send(link.fd, raw) }
            }
            switch result {
            case .success(nil):
                loop?.arm(link.fd, write: true)
                return
            case .success(let count?):
                link.output.consume(count)
                core.noteWroteProgress(link.id, at: now)
            case .failure(let error):
                peerStoppedReading(link, error)
                return
            }
        }
    }

    /// A write failed: the peer closed or reset the connection. What it
    /// wrote before that (a leave frame) is still readable, so the link is
    /// read to its end before it is dropped: a peer that said leave and
    /// closed while this node was writing to it left, it did not fail.
    private func peerStoppedReading(_ link: PeerLink, _ error: TransportError) {
        guard link.writeFailure == nil, core.phase(of: link.id) == .established, !link.isThrottled, !waitsForNode(link) else {
            drop(link, .ioError(error))
            return
        }
        link.writeFailure = error
        _ = link.output.takeUnwritten()
        _ = link.unsealed.takeUnwritten()
        loop?.arm(link.fd, read: true)  // the end of the stream is ready to read
    }

    /// Seals queued frames, up to `sealBatchBytes`, into records in
    /// `output`. A frame too large for one record is not sent (logged):
    /// the node keeps frames below it (catch-up replies are 48 KiB at most).
    private func sealPending(on link: PeerLink) {
        guard link.transport != nil, !link.unsealed.isEmpty else { return }
        var batch: [UInt8] = []
        batch.reserveCapacity(min(link.unsealed.byteCount, Self.sealBatchBytes) + 64)
        while batch.count < Self.sealBatchBytes, let frame = link.unsealed.popFrame() {
            let body = frame.last == 0x0A ? frame.dropLast() : frame[...]
            do {
                // Sealed straight into the batch: no array per frame or record.
                let sealed = body.withUnsafeBytes { plaintext in
                    Result { () throws(CryptoError) in try link.transport!.sealFramed(plaintext, appendingTo: &batch) }
                }
                try sealed.get()
            } catch {
                logger.error("a frame of \(body.count) bytes was not sent to \(link.peerNumber.map(String.init(describing:)) ?? "?"): \(error)")
            }
        }
        if !batch.isEmpty { _ = link.output.enqueue(Data(batch)) }
    }

    /// Moves the frames a replaced link never sealed to its successor,
    /// ahead of the successor's own: a frame the node was told was sent is
    /// not lost when a link is replaced.
    func moveUnsentFrames(from previous: PeerLink, to link: PeerLink) {
        let moved = previous.unsealed.takeUnwritten()
        guard !moved.isEmpty else { return }
        let own = link.unsealed.takeUnwritten()
        for frame in moved + own where !link.unsealed.enqueue(frame) { stats.queueOverflow += 1 }
        flush(link)
    }

    // MARK: Closing

    /// Closes `link` and reports what that means: `.peerLeft` if it was the
    /// peer's established link, and to the core (`.linkLost`, `.dialFailed`)
    /// what it does next about the peer. Idempotent.
    func drop(_ link: PeerLink, _ cause: LinkDropCause) {
        guard !link.isClosed else { return }
        let closed = release(link, graceful: false)
        if closed?.entry.phase == .retiring {
            // Its successor carries the peer; this end is expected.
            logger.debug("a replaced link to \(link.peerNumber.map(String.init(describing:)) ?? "?") closed (\(cause))")
            return
        }
        let number = link.peerNumber
        let wasCurrent = closed?.wasEstablished ?? false
        let peerName = number.map { "\($0)" } ?? link.remote.description
        switch cause {
        case .superseded(let why): logger.debug("closed a link to \(peerName): \(why)")
        case .violation(let why): logger.notice("cut off \(peerName): \(why)")
        case .timedOut(let why): logger.info("closed the link to \(peerName): \(why)")
        case .ioError(let error): logger.info("link to \(peerName) failed: \(error)")
        case .endOfStream, .left, .restarted: logger.info("link to \(peerName) closed (\(cause))")
        }

        guard wasCurrent, let number else {
            // Never established (or already replaced): a failed dial backs off.
            if link.direction == .outbound, closed?.entry.lifecycle.isUnfinished ?? false {
                if case .superseded = cause {} else { stats.dialFailures += 1 }
                let expected = link.expectedNumber ?? link.peer?.number
                perform(core.handle(.dialFailed(expecting: expected, staticIndex: link.staticIndex, at: now)))
                if let expected, established[expected] == nil {
                    overlayDialFailed(expected, cause)
                }
            }
            return
        }
        overlayLinkDown(link, number)
        let reason: PeerLeaveReason
        switch cause {
        case .left: reason = .left
        case .violation, .superseded: reason = .disconnected
        case .restarted: reason = .restarted
        case .timedOut: reason = .timedOut
        case .endOfStream, .ioError: reason = .timedOut  // a clean leave comes as a frame first
        }
        emit(.peerLeft(number, reason))
        // A claim by another instance, a redial, a held link taking the place.
        if let closed { perform(core.handle(.linkLost(closed, reason, at: now))) }
    }

    /// Removes `link` from the loop and the tables and closes its socket.
    /// `graceful`: FIN after queued output instead of a possible reset.
    /// Returns what the core knew of it (nil if already closed).
    @discardableResult
    func release(_ link: PeerLink, graceful: Bool) -> TransportCore.ClosedLink? {
        guard !link.isClosed else { return nil }
        link.markClosed()
        links[link.id] = nil
        let closed = core.close(link.id)
        loop?.remove(link.fd)
        if graceful {
            // What the socket takes now of what was queued (a leave frame).
            sealPending(on: link)
            while let chunk = link.output.nextChunk,
                  let sent = try? chunk.withUnsafeBytes({ raw throws(TransportError) in try Socket.send(link.fd, raw) }) {
                link.output.consume(sent)
            }
            // close() with unread input resets the connection and discards
            // our queued output (the leave frame); drain first, then FIN.
            // Bounded: a peer still sending flat out gets its reset after all.
            for _ in 0..<16 {
                guard case .bytes = (try? Socket.receive(link.fd, into: &readBuffer)) ?? .endOfStream else { break }
            }
            Socket.shutdownWrite(link.fd)
        }
        Socket.close(link.fd)
        return closed
    }
}
