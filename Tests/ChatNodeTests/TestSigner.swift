import ChatCore
import ChatCrypto
import Foundation

/// A node identity whose number derives from a fresh Ed25519 key, with the
/// authenticator that signs for it (the real one the CLI uses).
struct TestSigner {
    let identity: NodeIdentity
    let authenticator: any MessageAuthenticator
    /// The public key as `authorKey` and the transport's `identityKey` carry it.
    let encodedKey: String

    init(_ nickname: String) throws {
        let key = try IdentityKey.generate()
        identity = NodeIdentity(number: key.nodeNumber, nickname: nickname)
        authenticator = Ed25519MessageAuthenticator(key: key)
        encodedKey = Data(key.publicKey.rawValue).base64EncodedString()
    }
}
