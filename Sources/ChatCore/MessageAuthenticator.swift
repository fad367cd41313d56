/// Signs the public messages this node authors and checks those it
/// receives. ChatCore only defines the contract; the Ed25519
/// implementation lives in ChatCrypto (`Ed25519MessageAuthenticator`), so
/// the core stays free of system libraries.
public protocol MessageAuthenticator: Sendable {
    /// Sets `signature` and `authorKey` on a public message this node
    /// authored (its `senderNumber` is the node's own).
    func sign(_ payload: inout P2PPayload)
    /// Whether `payload` was written by the node its `senderNumber` names:
    /// `authorKey` must derive that number, and `signature` must verify
    /// over `PublicMessageSignature.canonicalBytes(of:)` with that key.
    func verify(_ payload: P2PPayload) -> SignatureVerdict
    /// The public key this node signs with (base64, as `authorKey`): what
    /// safety numbers are computed from. Nil when there is none.
    var authorKey: String? { get }
}

extension MessageAuthenticator {
    public var authorKey: String? { nil }
}

/// The outcome of checking a public message's signature. Every case but
/// `.valid` means the message is not shown as its claimed author's.
public enum SignatureVerdict: String, Hashable, Sendable, CustomStringConvertible {
    case valid
    /// No signature or no author key.
    case unsigned
    /// A field is not base64, or decodes to the wrong length.
    case malformed
    /// The author key does not derive the sender number.
    case wrongAuthorKey
    /// The signature does not verify over the canonical bytes.
    case badSignature
    /// Live only: the author key is not the one the link's handshake proved
    /// (or the sender is not the link's peer), so the link cannot vouch for it.
    case notLinkKey

    public var isValid: Bool { self == .valid }

    public var description: String {
        switch self {
        case .valid: "valid signature"
        case .unsigned: "unsigned"
        case .malformed: "malformed signature or author key"
        case .wrongAuthorKey: "author key does not derive the sender number"
        case .badSignature: "signature does not verify"
        case .notLinkKey: "author key is not the link's verified key"
        }
    }
}
