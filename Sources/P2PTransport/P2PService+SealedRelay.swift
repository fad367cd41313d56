import ChatCore
import ChatWire
import ChatCrypto
import ChatOverlay
import Foundation

/// Direct frames sealed to their recipient and flooded over the overlay
/// when no link can be made (PROTOCOL.md, "Overlay", sealed relay). The
/// frame is sealed whole (`SealedEnvelope`, Noise X) to the recipient's
/// card; every overlay node passes the envelope on once (by id, within a
/// hop limit and a per-peer budget) and tries to open it: only the
/// recipient can, so relays learn that an envelope went by and its size,
/// not who sent it or to whom. The recipient checks that the sealer's
/// proven identity is the frame's sender and that it is for this node,
/// then hands it to the node as if it came on the sender's link.
///
/// A sender learns a card by flooding a card query; the peer it names
/// answers with its card, flooded back, and the card is kept only if it
/// was asked for, its signature holds and its identity derives the number.
extension P2PService {
    /// Seals `payload` to unlinked `peer` and floods it, if its frames go
    /// sealed now (`DirectReach.sealsTo`). False if not sent.
    func sendSealed(_ payload: P2PPayload, to peer: NodeNumber) -> Bool {
        guard overlayIsPartial, payload.type.isDirect, let credential = handshakeCredential,
              overlayLinks!.direct.sealsTo(peer, now: now), let card = overlayLinks!.direct.card(of: peer, now: now) else {
            return false
        }
        var plaintext = Array(P2PFrameCodec.encode(payload))
        plaintext.removeLast()  // the newline
        let envelope: [UInt8]
        do {
            envelope = try SealedEnvelope.seal(plaintext, from: credential, to: SealedEnvelope.Recipient(card: card))
        } catch {
            logger.notice("could not seal a \(payload.type) for \(peer): \(error)")
            return false
        }
        guard envelope.count <= OverlayFrameCodec.maxEnvelopeBytes else {
            logger.notice("a \(payload.type) for \(peer) is too large to seal (\(envelope.count) bytes)")
            return false
        }
        let header = overlayLinks!.relay.originate(messageIDs.next(millis: clock.nowMillis()))
        guard flood(.sealed(header, envelope: envelope), except: nil) > 0 else { return false }
        stats.sealedSent += 1
        return true
    }

    func queryCard(of peer: NodeNumber) {
        let header = overlayLinks!.relay.originate(messageIDs.next(millis: clock.nowMillis()))
        if flood(.cardQuery(header, origin: identity.number, target: peer), except: nil) > 0 { stats.cardQueries += 1 }
    }

    /// A card query, card or envelope from overlay neighbour `peer`.
    func receiveRelay(_ frame: OverlayFrame, from peer: NodeNumber) {
        let header: RelayHeader
        switch frame {
        case .cardQuery(let relay, _, _), .card(let relay, _, _), .sealed(let relay, _): header = relay
        default: return
        }
        let forwardTTL: Int?
        switch overlayLinks!.relay.receive(header, from: peer, now: now) {
        case .duplicate, .overBudget:
            stats.relayDropped += 1
            return
        case .fresh(let ttl):
            forwardTTL = ttl
        }
        var passOn = true
        switch frame {
        case .cardQuery(_, let origin, let target) where target == identity.number:
            passOn = false
            answerCardQuery(from: origin)
        case .card(_, let to, let card):
            // Kept by any node awaiting that card, not only the asker: the
            // card's owner answers within a node-wide budget, which a flood
            // of queries naming it can spend, so one answer serves all.
            if to == identity.number { passOn = false }
            learnCard(card, addressedHere: to == identity.number)
        case .sealed(_, let envelope):
            // Passed on by its recipient too, so a neighbour cannot tell.
            open(envelope)
        default:
            break
        }
        // A full mesh links every node it knows: nothing to pass on (a peer
        // could otherwise make it flood 47 links with each relay frame).
        guard passOn, overlayIsPartial, let ttl = forwardTTL else { return }
        var next = header
        next.ttl = ttl
        let forwarded: OverlayFrame
        switch frame {
        case .cardQuery(_, let origin, let target): forwarded = .cardQuery(next, origin: origin, target: target)
        case .card(_, let to, let card): forwarded = .card(next, to: to, card: card)
        case .sealed(_, let envelope): forwarded = .sealed(next, envelope: envelope)
        default: return
        }
        stats.relayForwarded += flood(forwarded, except: peer) > 0 ? 1 : 0
    }

    private func answerCardQuery(from origin: NodeNumber) {
        guard origin != identity.number, let credential = handshakeCredential,
              overlayLinks!.cardAnswers.take(at: now) else { return }
        let header = overlayLinks!.relay.originate(messageIDs.next(millis: clock.nowMillis()))
        flood(.card(header, to: origin, card: credential.card), except: nil)
    }

    /// A card that went by: kept if this node awaits it and it verifies.
    /// One addressed elsewhere and not awaited is not even checked.
    private func learnCard(_ card: [UInt8], addressedHere: Bool) {
        guard addressedHere || overlayLinks!.direct.awaitsAnyCard else { return }
        guard let recipient = try? SealedEnvelope.Recipient(card: card) else {
            stats.cardsRefused += 1
            logger.debug("refused a card whose signature does not hold")
            return
        }
        let number = recipient.identity.nodeNumber
        guard overlayLinks!.direct.awaitsCard(of: number) else {
            if addressedHere { stats.cardsRefused += 1 }
            return
        }
        stats.cardsLearned += 1
        overlayLinks!.direct.learnCard(card, of: number, now: now)
    }

    /// Opens `envelope` if it is sealed to this node and hands its frame to the node.
    private func open(_ envelope: [UInt8]) {
        guard let credential = handshakeCredential,
              let opened = try? SealedEnvelope.open(envelope, as: credential) else { return }
        guard overlayLinks!.opened.insert(Array(SHA256.hash(envelope).prefix(16))) else {
            stats.sealedReplayed += 1
            return
        }
        let sender = opened.sender.nodeNumber
        guard let payload = try? P2PFrameCodec.decode(opened.plaintext), payload.type.isDirect,
              payload.senderNumber == sender, payload.targetNumber == identity.number, sender != identity.number else {
            stats.sealedRefused += 1
            logger.notice("refused a sealed frame that is not a direct frame of its sealer's for this node")
            return
        }
        stats.sealedDelivered += 1
        overlayLinks!.direct.learnCard(opened.senderCard, of: sender, now: now)
        overlayLinks!.direct.reachedSealed(by: sender, now: now)
        deliverFrame(payload, from: sender)
        flushDelivered()
    }

    /// Sends `frame` to every overlay neighbour but `except`; how many took it.
    @discardableResult
    private func flood(_ frame: OverlayFrame, except: NodeNumber?) -> Int {
        var count = 0
        for (number, link) in established.sorted(by: { $0.key < $1.key }) where number != except && link.speaksOverlay {
            sendOverlay(frame, to: number)
            count += 1
        }
        return count
    }
}
