import ChatCore

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
