import ChatCore

/// Offers follow the DM request rules: an offer from a peer this user has
/// no accepted DM conversation with is held, unseen, beside its DM
/// request; accepting the request shows it, declining declines it. A peer
/// whose DMs were declined is refused outright (`receiveOffer`).
extension FileTransfers {
    /// Holds `transfer` until the DM conversation with its peer is accepted.
    func hold(_ transfer: FileTransfer) {
        held[transfer.id] = transfer
    }

    /// Offers held for `peer`, oldest first.
    public func heldOffers(from peer: NodeNumber) -> [FileTransfer] {
        held.values.filter { $0.peer == peer }.sorted { $0.id < $1.id }
    }

    func dmStateChanged(with peer: NodeNumber, to state: DMState) async {
        let offers = heldOffers(from: peer)
        guard !offers.isEmpty else { return }
        switch state {
        case .accepted:
            for offer in offers {
                held[offer.id] = nil
                transfers[offer.id] = offer
                emit(.offer(offer))
            }
            pruneFinished()
        case .declinedByMe:
            for offer in offers {
                held[offer.id] = nil
                declinedUnseen += 1
                await send(await frame(type: .fileDecline, to: peer, refId: offer.id), to: peer)
            }
        default:
            break
        }
    }

    /// The error for a user naming a held offer (`find`).
    func heldError(_ token: String) -> NodeError? {
        let token = token.lowercased().trimmingCharacters(in: .whitespaces).trimmingCharacters(in: .init(charactersIn: "#"))
        guard token.count >= 4, let offer = held.values.first(where: {
            $0.id.description.hasPrefix(token) || $0.id.description.hasSuffix(token)
        }) else { return nil }
        // The short id people type, not the full one: the status line is one row.
        return .file("#\(offer.id.description.suffix(8)) waits for \(offer.peerNickname)'s DM request: /accept \(offer.peerNickname) first")
    }
}
