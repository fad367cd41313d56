import ChatCore
import Foundation

/// What the transfer links report, and the dialling that resumes a fetch.
extension FileTransfers {
    func handle(_ event: FileLinkEvent) async {
        switch event {
        case .progress(let id, let bytes):
            guard var transfer = transfers[id], !transfer.state.isFinished else { return }
            let now = clock.nowMillis()
            if let mark = progressMarks[id], now > mark.at, bytes >= mark.bytes {
                let recent = (bytes - mark.bytes) * 1000 / (now - mark.at)
                // Smoothed: a third of the newest sample.
                transfer.bytesPerSecond = transfer.bytesPerSecond == 0 ? recent : (2 * transfer.bytesPerSecond + recent) / 3
            }
            progressMarks[id] = (bytes, now)
            transfer.bytes = bytes
            transfers[id] = transfer
            retryCount[id] = nil  // bytes flow: the next interruption retries soon again
            emit(.progress(transfer))
        case .received(let id):
            await saveReceived(id)
        case .sent(let id):
            guard var transfer = transfers[id], transfer.direction == .sending, !transfer.state.isFinished else { return }
            transfer.state = .done
            transfer.bytes = transfer.size
            progressMarks[id] = nil
            links.unserve(id)
            if await commit(transfer) { emit(.done(transfer)) }
        case .interrupted(let id, let reason):
            guard let transfer = transfers[id], transfer.state == .accepted else { return }
            logger.info("transfer \(id) interrupted: \(reason)")
            switch transfer.direction {
            case .receiving:
                scheduleRetry(transfer)
            case .sending:
                // The receiver dials again by itself, unless it already has
                // the whole file and only its verdict was lost: a repeated
                // offer gets `fileDone` then (or an earlier redial), where
                // silence would leave this side sending for ever.
                guard linked[transfer.peer] != nil else { return }
                await send(await offerFrame(transfer), to: transfer.peer)
            }
        case .failed(let id, let reason):
            guard var transfer = transfers[id], !transfer.state.isFinished else { return }
            transfer.state = .failed
            transfer.reason = reason
            await finishLink(of: transfer)
            guard await commit(transfer) else { return }
            emit(.failed(transfer))
            // The link may be gone: say it on the chat link too.
            await send(await frame(type: .fileCancel, to: transfer.peer, refId: id, content: String(reason.prefix(200))), to: transfer.peer)
        }
    }

    /// Dials the sender if it is linked (else waits for it to link up).
    /// While the previous link of the transfer is still on its way down (a
    /// cut, the sender restarted), the dial is tried again after the
    /// backoff: dropping it would leave the transfer waiting for ever.
    func fetch(_ transfer: FileTransfer) {
        guard transfer.direction == .receiving, transfer.state == .accepted,
              let peer = linked[transfer.peer], let host = Self.host(of: peer.address) else { return }
        retries[transfer.id]?.cancel()
        retries[transfer.id] = nil
        let started = links.fetch(FetchRequest(id: transfer.id, peerKey: transfer.peerKey, host: host, port: transfer.port,
                                               partialPath: transfer.path, size: transfer.size, sha256: transfer.sha256))
        if !started { scheduleRetry(transfer) }
    }

    /// Dials again after 1 s, 2 s, 4 s ... up to 30 s while the sender is linked.
    func scheduleRetry(_ transfer: FileTransfer) {
        let attempt = retryCount[transfer.id, default: 0]
        retryCount[transfer.id] = attempt + 1
        let delay = Duration.seconds(min(30, 1 << min(attempt, 5)))
        let id = transfer.id
        retries[id]?.cancel()
        retries[id] = Task { [clock] in
            try? await clock.sleep(for: delay)
            guard !Task.isCancelled else { return }
            self.retry(id)
        }
    }

    private func retry(_ id: MessageID) {
        retries[id] = nil
        guard let transfer = transfers[id] else { return }
        fetch(transfer)
    }

    /// Stops the transfer's link and clears what it left: a receiver's
    /// partial file goes.
    func finishLink(of transfer: FileTransfer) async {
        retries[transfer.id]?.cancel()
        retries[transfer.id] = nil
        retryCount[transfer.id] = nil
        progressMarks[transfer.id] = nil
        switch transfer.direction {
        case .sending:
            links.unserve(transfer.id)
        case .receiving:
            links.interrupt(transfer.id)
            if !transfer.path.isEmpty, transfer.state != .done { try? FileManager.default.removeItem(atPath: transfer.path) }
        }
    }

    /// The partial file is whole and verified: move it to a free name.
    private func saveReceived(_ id: MessageID) async {
        guard var transfer = transfers[id], transfer.direction == .receiving, transfer.state == .accepted else { return }
        guard let saved = Self.moveWithoutOverwriting(transfer.path, into: downloadDirectory, name: FileName(cleaning: transfer.name)) else {
            await handle(.failed(id, reason: "cannot move the file into \(downloadDirectory)"))
            return
        }
        transfer.state = .done
        transfer.path = saved
        transfer.bytes = transfer.size
        transfer.name = (saved as NSString).lastPathComponent
        retryCount[id] = nil
        progressMarks[id] = nil
        if await commit(transfer) { emit(.done(transfer)) }
    }

    /// "10.0.0.2" of "10.0.0.2:40123".
    static func host(of address: String) -> String? {
        guard let colon = address.lastIndex(of: ":") else { return address.isEmpty ? nil : address }
        let host = String(address[..<colon])
        return host.isEmpty ? nil : host
    }
}
