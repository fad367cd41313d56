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

    public init(peer: PeerInfo, fingerprint: String, previousFingerprint: String, previousFirstSeen: Int64?, previousVerified: Bool) {
        self.peer = peer
        self.fingerprint = fingerprint
        self.previousFingerprint = previousFingerprint
        self.previousFirstSeen = previousFirstSeen
        self.previousVerified = previousVerified
    }
}

/// What `/verify NAME` found, and did when confirmed.
public struct KeyVerification: Hashable, Sendable {
    public var number: NodeNumber
    public var nickname: String
    public var key: String
    public var fingerprint: String
    /// 60 digits in 12 groups of 5, the same on both nodes (SafetyNumber).
    /// Nil when this node has no key of its own (tests without keys).
    public var safetyNumber: String?
    /// The peer's trust after the command.
    public var trust: PeerTrust
    /// This command marked the key verified.
    public var confirmed: Bool
    /// DMs that were held for the key change and went out on confirmation.
    public var released: Int
    /// DMs still held (until confirmed).
    public var held: Int

    public init(number: NodeNumber, nickname: String, key: String, fingerprint: String, safetyNumber: String?, trust: PeerTrust,
                confirmed: Bool, released: Int = 0, held: Int = 0) {
        self.number = number
        self.nickname = nickname
        self.key = key
        self.fingerprint = fingerprint
        self.safetyNumber = safetyNumber
        self.trust = trust
        self.confirmed = confirmed
        self.released = released
        self.held = held
    }
}

/// A DM held because its peer's verified key changed (`ChatNode+Keys.swift`).
struct HeldDM: Hashable, Sendable {
    var text: String
    var automatic: Bool
}

/// The node's key continuity state: the ledger as committed, and what this
/// run has said and held.
struct KeyContinuity: Sendable {
    var ledger = KeyLedger()
    /// Each ledger key's node number (derived from the key).
    var numbers: [String: NodeNumber] = [:]
    /// Keys whose change was reported this run.
    var reported: Set<String> = []
    var held: [NodeNumber: [HeldDM]] = [:]
    /// A ledger write is under way; others wait (plan from what is committed).
    var writing = false
    var waiters: [CheckedContinuation<Void, Never>] = []

    /// Per peer and in all: a held DM waits in memory only.
    static let heldPerPeer = 32
    static let heldTotal = 256
}
