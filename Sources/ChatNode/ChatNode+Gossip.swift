import ChatCore

/// Public messages relayed by a peer other than their author: the
/// overlay's gossip (PROTOCOL.md, "Overlay"). A transport hands such a
/// frame over only from the overlay (on a plain link a frame naming
/// another sender cuts the link), so the link cannot vouch for it: like a
/// message relayed in a catch-up reply, it is its author's only if its
/// signature verifies (`admitLive`, before anything changes it; the
/// transport's check of the same frame before relaying it answers that
/// one, `VerifiedSignatures`), it is
/// never taken as this node's own, and an id already stored is a
/// duplicate, whoever relays it. Planned in NodeCore+Gossip.swift.
extension ChatNode {
    /// Whether `payload` came relayed rather than from its author's link.
    static func isRelayedPublic(_ payload: P2PPayload, from peer: NodeNumber) -> Bool {
        payload.type == .publicMessage && payload.senderNumber != peer
    }
}
