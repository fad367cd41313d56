import CCrypto
import ChatCore
import ChatCrypto
import Foundation

/// Ed25519 as bare EVP calls with the keys imported once: what verifying
/// and signing a public message would cost without the per-call key import
/// and base64 the authenticator does (the baseline of its figures).
struct RawSignature {
    let key: OpaquePointer
    let publicKey: OpaquePointer

    struct Failure: Error, CustomStringConvertible { var description: String }

    init() throws {
        let ctx = EVP_PKEY_CTX_new_id(CCRYPTO_PKEY_ED25519, nil)
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw Failure(description: "keygen") }
        self.key = key
        var raw = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1,
              let publicKey = EVP_PKEY_new_raw_public_key(CCRYPTO_PKEY_ED25519, nil, raw, 32) else { throw Failure(description: "public key") }
        self.publicKey = publicKey
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        let ctx = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(ctx) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit(ctx, nil, nil, nil, key) == 1,
              EVP_DigestSign(ctx, &signature, &length, message, message.count) == 1 else { throw Failure(description: "sign") }
        return signature
    }

    func verify(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
        let ctx = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(ctx) }
        return EVP_DigestVerifyInit(ctx, nil, nil, nil, publicKey) == 1
            && EVP_DigestVerify(ctx, signature, 64, message, message.count) == 1
    }

    /// Signs then verifies the canonical bytes of each payload: per second
    /// for each, on this thread.
    static func rates(_ payloads: [P2PPayload]) throws -> (verify: Double, sign: Double) {
        let raw = try RawSignature()
        let messages = payloads.map { PublicMessageSignature.canonicalBytes(of: $0) }
        let signStart = ContinuousClock.now
        let signatures = try messages.map { try raw.sign($0) }
        let sign = Double(messages.count) / Measure.seconds(ContinuousClock.now - signStart)
        let verifyStart = ContinuousClock.now
        for (signature, message) in zip(signatures, messages) where !raw.verify(signature, message) {
            throw Failure(description: "verify")
        }
        let verify = Double(messages.count) / Measure.seconds(ContinuousClock.now - verifyStart)
        return (verify, sign)
    }
}
