import ChatCore

/// Signed public messages: the node signs each public message it writes,
/// and shows a received one as its author's only when the author's key
/// signed it (live from the author, or relayed in a catch-up reply).
/// Without an authenticator (tests of v1 behaviour) nothing is signed or
/// checked.
extension ChatNode {
    /// A freshly composed public message, signed; the stored copy keeps
    /// the signature so catch-up can relay it.
    func signed(_ composed: (payload: P2PPayload, message: Message)) -> (payload: P2PPayload, message: Message) {
        guard let authenticator else { return composed }
        var (payload, message) = composed
        authenticator.sign(&payload)
        if payload.signature == nil { logger.error("could not sign public message \(payload.messageId); peers will refuse it") }
        message.signature = payload.signature
        message.authorKey = payload.authorKey
        return (payload, message)
    }

    /// Whether a frame that came over `peer`'s link may go on to the
    /// router: a public message must carry a valid signature. Checked
    /// before anything (timestamp clamping) changes the frame.
    func admitLive(_ payload: P2PPayload, from peer: NodeNumber) -> Bool {
        guard payload.type == .publicMessage, let authenticator else { return true }
        let verdict = authenticator.verify(payload)
        guard verdict.isValid else {
            counters.signatureRefusals[verdict.rawValue, default: 0] += 1
            logger.notice("refused public message \(payload.messageId) from \(peer): \(verdict)")
            emit(.rejected(from: peer, reason: "public message: \(verdict)"))
            return false
        }
        return true
    }

    /// The frames of a received batch that may go on (see the one-frame
    /// `admitLive`); refused ones still count as received.
    func admitLive(_ frames: [(payload: P2PPayload, peer: NodeNumber)]) -> [(payload: P2PPayload, peer: NodeNumber)] {
        guard authenticator != nil else { return frames }
        return frames.filter { frame in
            if admitLive(frame.payload, from: frame.peer) { return true }
            counters.receivedByType[frame.payload.type.name, default: 0] += 1
            lastHeard[frame.peer] = clock.nowMillis()
            return false
        }
    }

    /// Notes a history request before it is sent, so its reply is expected.
    func noteCatchUpRequest(_ request: P2PPayload, to peer: NodeNumber) {
        catchUpRequests.sent(request.messageId, to: peer)
    }

    /// The entries of a history reply that may be stored, in order; nil if
    /// the reply answers no request of ours (then nothing in it is used).
    /// Refused, and counted: a public message claiming this node as its
    /// author that we do not already hold, and one whose signature fails
    /// (unsigned included). Frames of other types pass on, for the caller's
    /// own validity check.
    func admitCatchUp(_ reply: P2PPayload, from peer: NodeNumber) async -> [P2PPayload]? {
        guard catchUpRequests.answer(reply, from: peer) else {
            counters.unsolicitedHistoryReplies += 1
            logger.notice("refused a history reply from \(peer) that answers no request of ours")
            emit(.rejected(from: peer, reason: "history reply nobody asked for"))
            return nil
        }
        let frames = reply.messages ?? []
        let me = identity.number
        // Our own messages come back inside the catch-up window: harmless
        // if we hold them, a forgery if we do not.
        let mine = frames.filter { $0.senderNumber == me }.map(\.messageId)
        let held = mine.isEmpty ? [] : ((try? await store.storedIDs(among: mine)) ?? [])
        var admitted: [P2PPayload] = []
        var refused = 0
        for frame in frames {
            guard frame.type == .publicMessage else {
                admitted.append(frame)
                continue
            }
            if frame.senderNumber == me {
                if !held.contains(frame.messageId) {
                    counters.relayedClaimingSelf += 1
                    refused += 1
                }
                continue  // held: nothing to store either way
            }
            if let authenticator {
                let verdict = authenticator.verify(frame)
                guard verdict.isValid else {
                    counters.signatureRefusals[verdict.rawValue, default: 0] += 1
                    refused += 1
                    continue
                }
            }
            admitted.append(frame)
        }
        if refused > 0 {
            logger.notice("refused \(refused) of \(frames.count) entries in a history reply from \(peer)")
            emit(.rejected(from: peer, reason: "history reply: \(refused) entries failed verification"))
        }
        return admitted
    }

    /// The frame a stored public message is relayed as, with its author's
    /// signature and key.
    static func relayPayload(for message: Message) -> P2PPayload {
        var frame = payload(for: message)
        frame.signature = message.signature
        frame.authorKey = message.authorKey
        return frame
    }
}
