import ChatCore
import Foundation

/// A node identity with the authenticator that signs for it.
///
/// TEMPORARY test double until ChatCrypto's Ed25519 authenticator is
/// merged: not cryptography (anyone who knows the key can "sign"), only
/// enough for the node's checks to be exercised: the number derives from
/// the key, and the signature binds key and canonical bytes.
struct TestSigner {
    let identity: NodeIdentity
    let authenticator: any MessageAuthenticator

    init(_ nickname: String) throws {
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let double = DoubleAuthenticator(key: key)
        identity = NodeIdentity(number: DoubleAuthenticator.number(for: key), nickname: nickname)
        authenticator = double
    }
}

struct DoubleAuthenticator: MessageAuthenticator {
    let key: [UInt8]

    static func number(for key: [UInt8]) -> NodeNumber {
        let raw = key.prefix(7).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & ((1 << 53) - 1)
        return NodeNumber(rawValue: max(raw, 1))!
    }

    static func tag(_ key: [UInt8], _ bytes: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in key + bytes { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return key + (0..<32).map { UInt8(truncatingIfNeeded: hash >> (($0 % 8) * 8)) }
    }

    func sign(_ payload: inout P2PPayload) {
        payload.signature = Data(Self.tag(key, PublicMessageSignature.canonicalBytes(of: payload))).base64EncodedString()
        payload.authorKey = Data(key).base64EncodedString()
    }

    func verify(_ payload: P2PPayload) -> SignatureVerdict {
        guard let s = payload.signature, let k = payload.authorKey else { return .unsigned }
        guard let sig = Data(base64Encoded: s), let key = Data(base64Encoded: k), sig.count == 64, key.count == 32 else { return .malformed }
        guard Self.number(for: Array(key)) == payload.senderNumber else { return .wrongAuthorKey }
        return Array(sig) == Self.tag(Array(key), PublicMessageSignature.canonicalBytes(of: payload)) ? .valid : .badSignature
    }
}
