import CCrypto
import Synchronization

/// Ed25519 signatures with one key, without initialising a signing context
/// for each: `EVP_DigestSignInit` looks the algorithm up in libcrypto's
/// provider store every time (about 7 µs of a 75 µs signature here). A
/// context initialised once is the template; each signature signs on a
/// copy of it (`EVP_MD_CTX_copy_ex`), since a context that has signed may
/// not sign again (OpenSSL 3.2 refuses that). Pairs of template and work
/// context wait in a small pool, one per thread signing at once.
final class Ed25519Signer: Sendable {
    /// `@unchecked Sendable`: raw libcrypto pointers, moved between
    /// threads only through the pool's lock, and used by one signature at a
    /// time (taken out of the pool for its duration, never shared).
    private struct Contexts: @unchecked Sendable {
        let template: OpaquePointer
        let work: OpaquePointer
    }

    /// Pairs kept for reuse; more threads than this sign on fresh ones.
    static let pooled = 8

    private let key: EVPKeyHandle
    private let pool = Mutex<[Contexts]>([])

    init(key: EVPKeyHandle) { self.key = key }

    deinit {
        for contexts in pool.withLock({ $0 }) { Self.free(contexts) }
    }

    func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let contexts: Contexts
        if let pooled = pool.withLock({ $0.popLast() }) { contexts = pooled } else { contexts = try makeContexts() }
        var signature = [UInt8](repeating: 0, count: Ed25519.signatureByteCount)
        var length = Ed25519.signatureByteCount
        let copied = EVP_MD_CTX_copy_ex(contexts.work, contexts.template)
        // An empty message still needs a valid pointer.
        let result = copied == 1 ? (message.isEmpty ? [0] : message).withUnsafeBufferPointer {
            EVP_DigestSign(contexts.work, &signature, &length, $0.baseAddress, message.count)
        } : copied
        guard result == 1 else {
            Self.free(contexts)  // not trusted again
            try LibCrypto.check(result, copied == 1 ? "EVP_DigestSign" : "EVP_MD_CTX_copy_ex")
            return signature  // unreachable: check throws
        }
        let kept = pool.withLock { pool in
            guard pool.count < Self.pooled else { return false }
            pool.append(contexts)
            return true
        }
        if !kept { Self.free(contexts) }
        return signature
    }

    private func makeContexts() throws(CryptoError) -> Contexts {
        guard let template = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new") }
        guard let work = EVP_MD_CTX_new() else {
            EVP_MD_CTX_free(template)
            throw LibCrypto.failure("EVP_MD_CTX_new")
        }
        let initialised = withExtendedLifetime(key) { EVP_DigestSignInit(template, nil, nil, nil, key.key) }
        guard initialised == 1 else {
            Self.free(Contexts(template: template, work: work))
            try LibCrypto.check(initialised, "EVP_DigestSignInit")
            throw LibCrypto.failure("EVP_DigestSignInit")
        }
        return Contexts(template: template, work: work)
    }

    private static func free(_ contexts: Contexts) {
        EVP_MD_CTX_free(contexts.template)
        EVP_MD_CTX_free(contexts.work)
    }
}
