import Testing
@testable import ChatCrypto

/// `IdentityKey.sign` signs on pooled copies of a context initialised
/// once: every signature, reused contexts and concurrent signers
/// included, is RFC 8032's for the message.
@Suite struct Ed25519SignerTests {
    // RFC 8032 section 7.1, TEST 2: one-byte message 0x72.
    static let seed = hex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
    static let message: [UInt8] = [0x72]
    static let signature = hex("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                               + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")

    @Test func reusedContextsKeepSigningTheVector() throws {
        let key = try IdentityKey(seed: Self.seed)
        for _ in 0..<(Ed25519Signer.pooled + 4) {
            #expect(try key.sign(Self.message) == Self.signature)
        }
        // Another message in between: a context carries nothing over.
        #expect(key.publicKey.isValidSignature(try key.sign([1, 2, 3]), for: [1, 2, 3]))
        #expect(try key.sign(Self.message) == Self.signature)
    }

    @Test func concurrentSignersEachGetTheVector() async throws {
        let key = try IdentityKey(seed: Self.seed)
        let signatures = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<(2 * Ed25519Signer.pooled) {
                group.addTask { (0..<25).compactMap { _ in try? key.sign(Self.message) } }
            }
            var all: [[UInt8]] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(signatures.count == 2 * Ed25519Signer.pooled * 25)
        #expect(signatures.allSatisfy { $0 == Self.signature })
    }
}
