import ChatCore

/// How far a peer's key is trusted, as front ends show it (the list,
/// `/whois`, `--json`'s `trust`).
public struct PeerTrust: Hashable, Sendable {
    public enum State: String, Hashable, Sendable {
        case new, known, verified
        /// The nickname belongs to another key (seen before under it, or
        /// verified under it): this may be someone else.
        case changed

        init(_ trust: TrustState) {
            switch trust {
            case .new: self = .new
            case .known: self = .known
            case .verified: self = .verified
            }
        }
    }

    public var state: State
    /// When this key was first seen (ms), if the ledger holds it.
    public var firstSeen: Int64?
    public var verifiedAt: Int64?
    /// `.changed`: the key the nickname belongs to, when it was first
    /// seen, and whether the user had verified it.
    public var previousKey: String?
    public var previousFirstSeen: Int64?
    public var previousVerified = false

    public init(state: State, firstSeen: Int64? = nil, verifiedAt: Int64? = nil, previousKey: String? = nil,
                previousFirstSeen: Int64? = nil, previousVerified: Bool = false) {
        self.state = state
        self.firstSeen = firstSeen
        self.verifiedAt = verifiedAt
        self.previousKey = previousKey
        self.previousFirstSeen = previousFirstSeen
        self.previousVerified = previousVerified
    }

    public var isVerified: Bool { state == .verified }
}
