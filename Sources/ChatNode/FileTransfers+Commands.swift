import ChatCore
import Foundation

/// What a user does with files: offer one, accept, decline, cancel.
extension FileTransfers {
    /// Offers the file at `path` to `peer` (linked: the offer names the key
    /// its link proved). Hashes the file first, off the actor.
    public func send(path: String, to peer: PeerInfo) async throws(NodeError) -> FileTransfer {
        guard let key = peer.identityKey else { throw .file("\(peer.nickname) has no proven key; cannot offer a file") }
        let mine = transfers.values.filter { $0.direction == .sending && !$0.state.isFinished }
        guard mine.count < FileTransferLimits.pendingOffers,
              mine.filter({ $0.peer == peer.number }).count < FileTransferLimits.pendingOffersPerPeer else {
            throw .file("too many files offered and not finished; cancel some first")
        }
        let links = links
        let facts: FileFacts
        do {
            // On a thread of its own: hashing a large file takes seconds, and
            // the cooperative pool has one thread per core.
            facts = try await withCheckedThrowingContinuation { continuation in
                Thread { continuation.resume(with: Result { try links.inspect(path: path) }) }.start()
            }
        } catch {
            throw .file("\(error)")
        }
        let name = (path as NSString).lastPathComponent
        guard !name.isEmpty, name.utf8.count <= FileOffer.maxNameBytes else { throw .file("the file name is empty or longer than 255 bytes") }
        let transfer = FileTransfer(
            id: ids.next(millis: clock.nowMillis()), direction: .sending, peer: peer.number, peerNickname: peer.nickname,
            peerKey: key, name: name, size: facts.size, sha256: facts.sha256, path: path, modified: facts.modified,
            state: .offered)
        guard await commit(transfer) else { throw .storage("cannot save the transfer") }
        serve(transfer)
        await send(await offerFrame(transfer), to: peer.number)
        return transfer
    }

    /// Accepts an offer: checks the caps and free disk, then dials.
    public func accept(_ token: String) async throws(NodeError) -> FileTransfer {
        var transfer = try find(token)
        guard transfer.direction == .receiving, transfer.state == .offered else { throw .file("\(transfer.id) is not an offer waiting for an answer") }
        let running = transfers.values.filter { $0.direction == .receiving && $0.state == .accepted }
        guard running.count < FileTransferLimits.active,
              running.filter({ $0.peer == transfer.peer }).count < FileTransferLimits.activePerPeer else {
            throw .file("too many transfers running; accept again when one is done")
        }
        do {
            try FileManager.default.createDirectory(atPath: downloadDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .file("cannot create the download directory \(downloadDirectory): \(error.localizedDescription)")
        }
        if let free = Self.freeBytes(at: downloadDirectory), free < transfer.size + FileTransferLimits.diskReserve {
            throw .file("not enough free disk in \(downloadDirectory): \(transfer.size) bytes offered, \(free) free (\(FileTransferLimits.diskReserve) kept in reserve)")
        }
        transfer.path = (downloadDirectory as NSString).appendingPathComponent(".\(transfer.name).\(transfer.id).part")
        transfer.state = .accepted
        guard await commit(transfer) else { throw .storage("cannot save the transfer") }
        await send(await frame(type: .fileAccept, to: transfer.peer, refId: transfer.id), to: transfer.peer)
        fetch(transfer)
        return transfer
    }

    public func decline(_ token: String) async throws(NodeError) {
        var transfer = try find(token)
        guard transfer.direction == .receiving, transfer.state == .offered else { throw .file("\(transfer.id) is not an offer waiting for an answer") }
        transfer.state = .declined
        transfer.reason = "declined"
        // Never saved (an offer lives in memory until accepted): nothing to commit.
        transfers[transfer.id] = transfer
        await send(await frame(type: .fileDecline, to: transfer.peer, refId: transfer.id), to: transfer.peer)
        emit(.failed(transfer))
    }

    public func cancel(_ token: String) async throws(NodeError) {
        var transfer = try find(token)
        guard !transfer.state.isFinished else { throw .file("\(transfer.id) is already \(transfer.state.rawValue)") }
        let wasSaved = transfer.state == .accepted || transfer.direction == .sending
        transfer.state = .cancelled
        transfer.reason = "cancelled"
        if wasSaved {
            guard await commit(transfer) else { throw .storage("cannot save the transfer") }
        } else {
            transfers[transfer.id] = transfer
        }
        await finishLink(of: transfer)
        await send(await frame(type: .fileCancel, to: transfer.peer, refId: transfer.id, content: "cancelled"), to: transfer.peer)
        emit(.failed(transfer))
    }

    /// The transfer a user named: its full id, or a unique start or end of
    /// it of at least 4 characters (the console shows the last 8).
    func find(_ token: String) throws(NodeError) -> FileTransfer {
        let token = token.lowercased().trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "#"))
        if let id = MessageID(token), let transfer = transfers[id] { return transfer }
        if let error = heldError(token) { throw error }
        guard token.count >= 4 else { throw .file("no transfer \(token)") }
        let matches = transfers.values.filter { $0.id.description.hasPrefix(token) || $0.id.description.hasSuffix(token) }
        guard matches.count == 1, let transfer = matches.first else {
            throw .file(matches.isEmpty ? "no transfer \(token); /files lists them" : "\(token) names \(matches.count) transfers; give more of the id")
        }
        return transfer
    }

    static func freeBytes(at path: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfFileSystem(forPath: path),
              let free = attributes[.systemFreeSize] as? NSNumber else { return nil }
        return free.int64Value
    }
}
