/// The Noise handshake patterns lanchat knows (spec rev 34, sections 7.4,
/// 7.5 and 9): XX for open links, XXpsk0+psk3 when nodes share a group
/// secret, and the one-way X for a message sealed to one recipient's static
/// key (`SealedEnvelope`). XXpsk3 stays only as a pattern its published
/// vectors test.
///
/// Why psk0+psk3 for a group and not psk3 alone: with psk3 the responder's
/// message 2 (its encrypted static key and identity payload) decrypts for a
/// dialler with any secret, so an outsider would learn a member's identity
/// and nickname. psk0 keys message 1 with the psk: a responder with another
/// secret fails on message 1 and never answers.
public enum NoisePattern: String, Sendable, CaseIterable {
    case XX
    case XXpsk3
    case XXpsk0psk3 = "XXpsk0+psk3"
    /// One-way: `<- s`, then `-> e, es, s, ss`. The sender knows the
    /// recipient's static key beforehand and authenticates its own.
    case X

    enum Token: Sendable { case e, s, ee, es, se, ss, psk }

    /// The messages in order; even indices go initiator -> responder.
    var messages: [[Token]] {
        switch self {
        case .XX: [[.e], [.e, .ee, .s, .es], [.s, .se]]
        case .XXpsk3: [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]]
        case .XXpsk0psk3: [[.psk, .e], [.e, .ee, .s, .es], [.s, .se, .psk]]
        case .X: [[.e, .es, .s, .ss]]
        }
    }

    /// True when the initiator knows the responder's static key before the
    /// first message (the pre-message `<- s`), mixed into the hash at start.
    var responderStaticIsPreMessage: Bool { self == .X }

    /// One-way patterns carry transport messages from initiator to
    /// responder only (spec section 7.4).
    public var isOneWay: Bool { self == .X }

    /// How many `psk` tokens the pattern has: the handshake takes one psk each.
    var pskCount: Int { messages.joined().filter { $0 == .psk }.count }

    var usesPSK: Bool { pskCount > 0 }

    /// The full protocol name, hashed into the initial handshake hash.
    public var protocolName: String { "Noise_\(rawValue)_25519_ChaChaPoly_SHA256" }
}
