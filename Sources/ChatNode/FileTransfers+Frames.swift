import ChatCore
import Foundation

/// File frames from peers: offers, answers, cancels. Nothing a peer says
/// is believed beyond what it may decide: an answer counts only from the
/// peer the offer went to, a cancel only from the transfer's other side.
extension FileTransfers {
    func receive(_ payload: P2PPayload, from peer: NodeNumber, dmState: DMState) async {
        guard payload.targetNumber == localNumber else { return }
        switch payload.type {
        case .fileOffer:
            await receiveOffer(payload, from: peer, dmState: dmState)
        case .fileAccept:
            guard let id = payload.refId, var transfer = transfers[id], transfer.direction == .sending,
                  transfer.peer == peer, transfer.state == .offered else { return }
            transfer.state = .accepted
            if await commit(transfer) { emit(.accepted(transfer)) }
        case .fileDecline:
            guard let id = payload.refId, var transfer = transfers[id], transfer.direction == .sending,
                  transfer.peer == peer, !transfer.state.isFinished else { return }
            transfer.state = .declined
            transfer.reason = "declined by \(transfer.peerNickname)"
            links.unserve(id)
            if await commit(transfer) { emit(.failed(transfer)) }
        case .fileCancel:
            if let id = payload.refId, held[id]?.peer == peer {
                held[id] = nil
                return
            }
            guard let id = payload.refId, var transfer = transfers[id], transfer.peer == peer, !transfer.state.isFinished else { return }
            let why = TerminalText.sanitize(String(payload.content.prefix(200)))
            transfer.state = .cancelled
            transfer.reason = why.isEmpty ? "cancelled by \(transfer.peerNickname)" : "cancelled by \(transfer.peerNickname): \(why)"
            await finishLink(of: transfer)
            if await commit(transfer) { emit(.failed(transfer)) }
        case .fileDone:
            // The receiver verified the file while this node was away.
            guard let id = payload.refId, var transfer = transfers[id], transfer.direction == .sending,
                  transfer.peer == peer, !transfer.state.isFinished, payload.content == transfer.sha256 else { return }
            transfer.state = .done
            transfer.bytes = transfer.size
            progressMarks[id] = nil
            links.unserve(id)
            if await commit(transfer) { emit(.done(transfer)) }
        default:
            break
        }
    }

    private func receiveOffer(_ payload: P2PPayload, from peer: NodeNumber, dmState: DMState) async {
        let id = payload.messageId
        let offer: FileOffer
        do { offer = try FileOffer(content: payload.content) } catch {
            logger.notice("refused a file offer from \(peer): \(error)")
            return
        }
        if var known = held[id] {
            // A repeat of a held offer: only the port may change.
            guard known.peer == peer, known.size == offer.size, known.sha256 == offer.sha256 else { return }
            known.port = offer.port
            held[id] = known
            return
        }
        if var known = transfers[id] {
            // A repeat (after a restart of either side): only the port may change.
            guard known.direction == .receiving, known.peer == peer else { return }
            if known.state == .done, known.sha256 == offer.sha256 {
                // Finished while the sender was away: tell it, or it offers forever.
                await send(await frame(type: .fileDone, to: peer, refId: id, content: known.sha256), to: peer)
                return
            }
            guard !known.state.isFinished else { return }
            guard known.size == offer.size, known.sha256 == offer.sha256 else {
                logger.notice("refused a repeated file offer \(id) from \(peer) that names another file")
                return
            }
            known.port = offer.port
            if known.state == .accepted {
                guard await commit(known) else { return }
                fetch(known)
            } else {
                transfers[id] = known
            }
            return
        }
        guard let info = linked[peer], let key = info.identityKey else { return }
        let transfer = FileTransfer(id: id, direction: .receiving, peer: peer, peerNickname: info.nickname, peerKey: key,
                                    name: FileName(cleaning: offer.name).value, size: offer.size, sha256: offer.sha256,
                                    path: "", port: offer.port, state: .offered)
        // The DM request rules: a peer whose DMs this user declined gets no hearing.
        if dmState == .declinedByMe {
            declinedUnseen += 1
            await send(await frame(type: .fileDecline, to: peer, refId: id), to: peer)
            return
        }
        let waiting = transfers.values.filter { $0.direction == .receiving && $0.state == .offered } + Array(held.values)
        if waiting.count >= FileTransferLimits.pendingOffers
            || waiting.filter({ $0.peer == peer }).count >= FileTransferLimits.pendingOffersPerPeer {
            logger.notice("declined a file offer from \(peer): too many offers waiting")
            declinedUnseen += 1
            await send(await frame(type: .fileDecline, to: peer, refId: id), to: peer)
            return
        }
        // Offers waiting for an answer live in memory only: nothing is
        // written before the user accepts (the sender repeats it on relink).
        guard dmState == .accepted else {
            hold(transfer)
            return
        }
        transfers[id] = transfer
        pruneFinished()
        emit(.offer(transfer))
    }
}
