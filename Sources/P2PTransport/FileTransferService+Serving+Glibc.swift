#if canImport(Glibc)
import ChatCore
import ChatCrypto
import Foundation
import Glibc

/// The sender's side: the listener and the links that serve offered files.
extension FileTransferService {
    public func start() throws -> Int {
        let fd = try Socket.makeTCPListener(port: listenPort)
        let port: Int
        do { port = try Socket.localEndpoint(fd).port } catch {
            Glibc.close(fd)
            throw error
        }
        state.withLock { state in
            state.listener = fd
            state.port = port
        }
        Thread { [self] in acceptLoop(fd) }.start()
        logger.info("transfer links on port \(port)")
        return port
    }

    public func interrupt(_ id: MessageID) {
        state.withLock { state in
            guard let fd = state.links[id] else { return }
            state.interrupted.insert(id)
            // Wakes the link's thread out of its blocking call; it closes the descriptor.
            if fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    public func stop() {
        let links = state.withLock { state -> [Int32] in
            // Wakes the accept loop out of its poll (a hang-up); the loop
            // closes the listener, after clearing it here under the lock.
            if !state.stopped, state.listener >= 0 { _ = shutdown(state.listener, Int32(SHUT_RDWR)) }
            state.stopped = true
            state.interrupted.formUnion(state.links.keys)
            return Array(state.links.values)
        }
        for fd in links where fd >= 0 { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        continuation.finish()
    }

    /// Accepts until `stop`, which shuts the listener down to end the
    /// wait: an idle node's thread sleeps, where a 250 ms poll woke it 4
    /// times a second.
    private func acceptLoop(_ listener: Int32) {
        defer {
            state.withLock { $0.listener = -1 }
            Glibc.close(listener)
        }
        while !state.withLock({ $0.stopped }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, -1) > 0 else { continue }
            guard let accepted = try? Socket.accept(listener) else { continue }
            let admitted = state.withLock { state -> Bool in
                let address = accepted.peer.address
                guard state.handshaking < Self.maxHandshaking, state.handshakingFrom[address, default: 0] < Self.maxHandshakingPerAddress,
                      !state.stopped else {
                    state.counters.handshakesRefused += 1
                    return false
                }
                state.handshaking += 1
                state.handshakingFrom[address, default: 0] += 1
                return true
            }
            guard admitted else {
                Glibc.close(accepted.fd)
                continue
            }
            Thread { [self] in serveConnection(accepted.fd, from: accepted.peer) }.start()
        }
    }

    private func endHandshake(from address: IPv4Endpoint) {
        state.withLock { state in
            state.handshaking -= 1
            let left = state.handshakingFrom[address.address, default: 1] - 1
            state.handshakingFrom[address.address] = left > 0 ? left : nil
        }
    }

    /// Runs one serving link: handshake, the checks of "Binding", then the
    /// file from the requested offset.
    private func serveConnection(_ fd: Int32, from address: IPv4Endpoint) {
        Self.runBehindChat()
        var handshaking = true
        defer { if handshaking { endHandshake(from: address) } }
        let connection: FileLinkConnection
        do { connection = try FileLinkConnection(accepted: fd, timeoutSeconds: FileTransferLimits.handshakeTimeoutSeconds) } catch {
            Glibc.close(fd)
            return
        }
        let peer: IdentityKey.Public
        let request: FileLinkRequest
        do {
            var handshake = try FileLinkHandshake(role: .responder, credential: credential, groupSecret: groupSecret)
            try connection.writeFrame(try handshake.answer(try connection.readFrame()))
            (peer, request) = try handshake.accept(try connection.readFrame())
            connection.cipher = handshake.transport
        } catch {
            logger.info("transfer link from \(address) refused: \(error)")
            return
        }
        endHandshake(from: address)
        handshaking = false
        let id = request.id
        guard let file = state.withLock({ $0.served[id] }), FileLinkHandshake.matches(peer, base64: file.peerKey) else {
            logger.notice("transfer link from \(address) asked for \(id), not offered to its key")
            count { $0.refused += 1 }
            try? connection.writeRecord(.fail("no such offer"))
            return
        }
        guard let token = admitServing(file) else {
            count { $0.refused += 1 }
            try? connection.writeRecord(.fail("busy: too many transfers running"))
            return
        }
        count { $0.linksServed += 1 }
        defer { endServing(file, token: token) }
        guard attach(connection.fd, to: id) else { return }
        // Runs before `connection` can close: no shutdown of a reused number.
        defer { detach(connection.fd, from: id) }
        do {
            try send(file, from: request.offset, over: connection)
        } catch let failure as FileLinkFailure {
            switch failure {
            case .final(let reason):
                try? connection.writeRecord(.fail(reason))
                report(.failed(id, reason: reason), unlessInterrupted: id)
            case .receiverFailed(let reason):
                report(.failed(id, reason: "the receiver: \(TerminalText.sanitize(reason))"), unlessInterrupted: id)
            }
        } catch {
            report(.interrupted(id, reason: "\(error)"), unlessInterrupted: id)
        }
    }

    /// Takes a serving slot; a link still registered for the same transfer
    /// is the receiver's previous one (it dialled again), so it is shut
    /// and replaced. Nil when the caps are full.
    private func admitServing(_ file: ServedFile) -> Int? {
        state.withLock { state in
            let replacing = state.links[file.id]
            let extra = replacing == nil ? 0 : 1  // the old one leaves its slot soon
            guard state.serving < FileTransferLimits.active + extra,
                  state.servingPerPeer[file.peer, default: 0] < FileTransferLimits.activePerPeer + extra else { return nil }
            if let old = replacing, old >= 0 { _ = shutdown(old, Int32(SHUT_RDWR)) }
            state.serving += 1
            state.servingPerPeer[file.peer, default: 0] += 1
            state.links[file.id] = -1
            state.interrupted.remove(file.id)
            state.nextToken += 1
            state.linkTokens[file.id] = state.nextToken
            return state.nextToken
        }
    }

    private func endServing(_ file: ServedFile, token: Int) {
        state.withLock { state in
            state.serving -= 1
            state.servingPerPeer[file.peer, default: 1] -= 1
            if state.servingPerPeer[file.peer] == 0 { state.servingPerPeer[file.peer] = nil }
            guard state.linkTokens[file.id] == token else { return }
            state.links[file.id] = nil
            state.linkTokens[file.id] = nil
        }
    }

    /// Streams `file` from `offset`, then waits for the receiver's verdict.
    private func send(_ file: ServedFile, from offset: Int64, over connection: FileLinkConnection) throws {
        let changed = "the file changed on the sender's disk"
        guard (try? Self.statFile(file.path)).map({ $0.size == file.facts.size && $0.modified == file.facts.modified }) == true else {
            throw FileLinkFailure.final(changed)
        }
        guard offset <= file.facts.size else { throw FileLinkFailure.final("offset past the end of the file") }
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileLinkFailure.final("cannot read the file: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        // Read from start to end once: let the kernel read ahead further.
        _ = posix_fadvise(fd, off_t(offset), 0, POSIX_FADV_SEQUENTIAL)
        try connection.writeRecord(.start(offset: offset, size: file.facts.size))
        connection.setTimeout(seconds: FileTransferLimits.idleTimeoutSeconds)
        var buffer = [UInt8](repeating: 0, count: FileLinkRecord.dataHeaderBytes + FileTransferLimits.chunkBytes)
        var out: [UInt8] = []
        out.reserveCapacity(buffer.count + 18)
        var position = offset
        var lastReport: Int64?  // the first record reports at once, whatever the clock reads
        while position < file.facts.size {
            let want = Int(min(Int64(pacing.recordBytes), file.facts.size - position))
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + FileLinkRecord.dataHeaderBytes, want, off_t(position)) }
            // Shorter than offered: the file shrank under us.
            guard got > 0 else { throw FileLinkFailure.final(changed) }
            FileLinkRecord.dataHeader(offset: position, into: &buffer)
            out.removeAll(keepingCapacity: true)
            try buffer.withUnsafeBytes { raw in
                try connection.cipher!.sealFramed(UnsafeRawBufferPointer(rebasing: raw[0..<(FileLinkRecord.dataHeaderBytes + got)]),
                                                  appendingTo: &out)
            }
            try connection.writeAll(out)
            position += Int64(got)
            count { $0.bytesSent += Int64(got) }
            if pacing.pause > .zero { clock.blockingSleep(for: pacing.pause) }
            let now = uptimeMillis()
            if lastReport.map({ now - $0 >= FileTransferLimits.progressIntervalMillis }) ?? true {
                lastReport = now
                report(.progress(file.id, bytes: position))
            }
        }
        // Changed while it was read: the receiver's hash would fail too, but
        // this says why.
        guard (try? Self.statFile(file.path)).map({ $0.size == file.facts.size && $0.modified == file.facts.modified }) == true else {
            throw FileLinkFailure.final(changed)
        }
        try connection.writeRecord(.end)
        report(.progress(file.id, bytes: file.facts.size))
        switch try connection.readRecord() {
        case .verified: report(.sent(file.id))
        case .fail(let reason): throw FileLinkFailure.receiverFailed(reason)
        default: throw FileLinkFailure.final("the receiver sent an unexpected record")
        }
    }
}

/// How a link ended for good (anything else is an interruption to resume).
enum FileLinkFailure: Error {
    /// This side found the transfer cannot succeed; tell the peer.
    case final(String)
    /// The peer said so in a `fail` record.
    case receiverFailed(String)
}
#endif
