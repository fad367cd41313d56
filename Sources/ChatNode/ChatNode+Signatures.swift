import ChatCore
import Foundation

/// Signed public messages: the node signs each public message it writes.
/// A received one is its author's when it came live on the author's own
/// link (the handshake proved the key; the signature is kept, unverified)
/// or, relayed in a catch-up reply or by the overlay's gossip
/// (ChatNode+Gossip.swift), when its signature verifies. Before a
/// stored message of another author is relayed, its signature is verified
/// (ChatNode+Relay.swift). Without an authenticator (tests of v1
/// behaviour) nothing is signed or checked.
extension ChatNode {
    /// A freshly drafted public message, signed off the actor (in the
    /// caller's task, on any core); the stored copy keeps the signature so
    /// catch-up can relay it. Unsigned if signing failed (planning logs it).
    @concurrent
    nonisolated static func signed(
        _ draft: (payload: P2PPayload, message: Message), with authenticator: any MessageAuthenticator
    ) async -> (payload: P2PPayload, message: Message) {
        var (payload, message) = draft
        authenticator.sign(&payload)
        message.signature = payload.signature
        message.authorKey = payload.authorKey
        return (payload, message)
    }

    /// Whether a frame that came over `peer`'s link may go on to the
    /// router: a public message must be signed by the link's own peer.
    /// Checked before anything (timestamp clamping) changes the frame.
    /// The refusal event goes to `notices`, emitted by the caller in the
    /// step's turn (a step checked while the one before commits must not
    /// report before that one's events).
    func admitLive(_ payload: P2PPayload, from peer: NodeNumber, notices: inout [NodeEvent]) -> Bool {
        guard payload.type == .publicMessage, let authenticator else { return true }
        let verdict: SignatureVerdict
        if Self.isRelayedPublic(payload, from: peer) {
            verdict = authenticator.verify(payload)  // relayed by the overlay: its author's signature (ChatNode+Gossip)
        } else if let linkKey = directory[peer]?.identityKey {
            verdict = Self.linkVerdict(payload, from: peer, linkKey: linkKey)
        } else {
            verdict = authenticator.verify(payload)  // a transport that proves no key
        }
        guard verdict.isValid else {
            counters.signatureRefusals[verdict.rawValue, default: 0] += 1
            logger.notice("refused public message \(payload.messageId) from \(peer): \(verdict)")
            notices.append(.rejected(from: peer, reason: "public message: \(verdict)"))
            return false
        }
        return true
    }

    /// A live public message from its author needs no Ed25519 verify: the
    /// link's Noise handshake already proved that `peer` holds `linkKey`,
    /// and every record on it is authenticated. So it is the author's iff
    /// it names the link's peer and key and carries a signature of the
    /// right length (stored unverified; checked before any relay, see
    /// `relayable`). A cheap string compare instead of a 142 µs verify.
    static func linkVerdict(_ payload: P2PPayload, from peer: NodeNumber, linkKey: String) -> SignatureVerdict {
        guard let signature = payload.signature, let key = payload.authorKey else { return .unsigned }
        guard payload.senderNumber == peer, key == linkKey else { return .notLinkKey }
        guard isSignatureShaped(signature) else { return .malformed }
        return .valid
    }

    /// Standard base64 of 64 bytes: 86 characters of the alphabet, then
    /// "==". A scan, not a decode (it runs for every live public message).
    static func isSignatureShaped(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 88, bytes[86] == UInt8(ascii: "="), bytes[87] == UInt8(ascii: "=") else { return false }
            guard bytes[..<86].allSatisfy({ base64Value($0) != nil }) else { return false }
            // The last character before the padding carries 4 unused bits, zero in canonical base64.
            return base64Value(bytes[85])! & 0x0F == 0
        }
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    /// The frames of a received batch that may go on (see the one-frame
    /// `admitLive`); refused ones still count as received.
    func admitLive(_ frames: [ReceivedFrame], notices: inout [NodeEvent]) -> [ReceivedFrame] {
        guard authenticator != nil else { return frames }
        var admitted: [ReceivedFrame] = []
        admitted.reserveCapacity(frames.count)
        for frame in frames {
            if admitLive(frame.payload, from: frame.peer, notices: &notices) {
                admitted.append(frame)
            } else {
                counters.receivedByType[frame.payload.type.counterKey, default: 0] += 1
                lastHeard[frame.peer] = clock.nowMillis()
            }
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
