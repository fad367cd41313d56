import ChatCore

/// A peer showed a key other than the one its nickname belongs to
/// (`NodeEvent.keyChanged`): said once per key per run, at its join or
/// rename, and again after every restart until the user verifies the new key.
public struct KeyChange: Hashable, Sendable {
    public var peer: PeerInfo
    /// The new key's fingerprint.
    public var fingerprint: String
    /// The fingerprint of the key the nickname belongs to.
    public var previousFingerprint: String
    /// When that key was first seen (ms), if known.
    public var previousFirstSeen: Int64?
    /// Whether the user had verified that key: DMs to this peer are held
    /// until the new key is confirmed.
    public var previousVerified: Bool
    /// The node the nickname belongs to (its `#tag`), and the nickname that
    /// key used last: another spelling when the new one only looks like it
    /// (`ALICE`, Cyrillic `аlice`).
    public var previousNumber: NodeNumber?
    public var previousNickname: String?

    public init(peer: PeerInfo, fingerprint: String, previousFingerprint: String, previousFirstSeen: Int64?, previousVerified: Bool,
                previousNumber: NodeNumber? = nil, previousNickname: String? = nil) {
        self.peer = peer
        self.fingerprint = fingerprint
        self.previousFingerprint = previousFingerprint
        self.previousFirstSeen = previousFirstSeen
        self.previousVerified = previousVerified
        self.previousNumber = previousNumber
        self.previousNickname = previousNickname
    }
}
