/// The Noise handshake patterns lanchat uses (spec rev 34, sections 7.5 and
/// 9.4): XX, and XXpsk3 when nodes share a group secret.
public enum NoisePattern: String, Sendable, CaseIterable {
    case XX
    case XXpsk3

    enum Token: Sendable { case e, s, ee, es, se, ss, psk }

    /// The messages in order; even indices go initiator -> responder.
    var messages: [[Token]] {
        switch self {
        case .XX: [[.e], [.e, .ee, .s, .es], [.s, .se]]
        case .XXpsk3: [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]]
        }
    }

    var usesPSK: Bool { self == .XXpsk3 }

    /// The full protocol name, hashed into the initial handshake hash.
    public var protocolName: String { "Noise_\(rawValue)_25519_ChaChaPoly_SHA256" }
}
