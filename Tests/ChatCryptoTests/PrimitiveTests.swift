import Testing
@testable import ChatCrypto

/// Each libcrypto wrapper against its standard's published vector.
@Suite struct PrimitiveTests {
    @Test func sha256MatchesFIPS180() {
        #expect(hexString(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hexString(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hmacMatchesRFC4231() {
        // Test case 2.
        let tag = SHA256.hmac(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
        #expect(hexString(tag) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(SHA256.verifyHMAC(tag, key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)))
        #expect(!SHA256.verifyHMAC(tag, key: Array("Jeff".utf8), Array("what do ya want for nothing?".utf8)))
        // Empty key is allowed (its value from Python's hmac module).
        #expect(hexString(SHA256.hmac(key: [], [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// The digest and the HMAC template are fetched once and shared: many
    /// threads at once still get the vector's value every time.
    @Test func hmacAndDigestAreSafeAcrossThreads() async {
        let key = Array("Jefe".utf8), data = Array("what do ya want for nothing?".utf8)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for _ in 0..<500 {
                        if hexString(SHA256.hmac(key: key, data)) != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" { wrong += 1 }
                        if hexString(SHA256.hash(Array("abc".utf8))) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test func x25519MatchesRFC7748() throws {
        // RFC 7748 section 6.1.
        let alice = try X25519KeyPair(privateKey: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519KeyPair(privateKey: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(hexString(alice.publicKey) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(hexString(bob.publicKey) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(hexString(try alice.sharedSecret(with: bob.publicKey)) == shared)
        #expect(hexString(try bob.sharedSecret(with: alice.publicKey)) == shared)
    }

    @Test func x25519RefusesLowOrderPoints() throws {
        let key = try X25519KeyPair.generate()
        #expect(throws: CryptoError.invalidPublicKey) { try key.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.invalidLength(what: "X25519 public key", expected: 32, got: 31)) {
            try key.sharedSecret(with: [UInt8](repeating: 9, count: 31))
        }
    }

    @Test func generatedKeysDiffer() throws {
        #expect(try X25519KeyPair.generate().privateKey != X25519KeyPair.generate().privateKey)
        #expect(try SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }

    @Test func ed25519MatchesRFC8032() throws {
        // RFC 8032 section 7.1, TEST 2 (one-byte message 0x72).
        let seed = hex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
        let publicKey = try Ed25519.publicKey(seed: seed)
        #expect(hexString(publicKey) == "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
        let signature = try Ed25519.sign([0x72], seed: seed)
        #expect(hexString(signature) == "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")
        #expect(Ed25519.verify(signature, message: [0x72], publicKey: publicKey))
        #expect(!Ed25519.verify(signature, message: [0x73], publicKey: publicKey))
        var bent = signature
        bent[10] ^= 1
        #expect(!Ed25519.verify(bent, message: [0x72], publicKey: publicKey))
        #expect(!Ed25519.verify(Array(signature.prefix(63)), message: [0x72], publicKey: publicKey))
        // Empty message signs and verifies too.
        #expect(Ed25519.verify(try Ed25519.sign([], seed: seed), message: [], publicKey: publicKey))
    }

    @Test func chachaPolyMatchesRFC8439() throws {
        // RFC 8439 section 2.8.2 (its nonce is not Noise-shaped: the raw-nonce form).
        let key = hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
        let ad = hex("50515253c0c1c2c3c4c5c6c7")
        let plaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let rfc = try ChaChaPoly.seal(key: key, nonce: hex("070000004041424344454647"), associatedData: ad, plaintext: plaintext)
        #expect(hexString(rfc) == "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b"
            + "1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
            + "1ae10b594f09e26a7e902ecbd0600691")
        #expect(try ChaChaPoly.open(key: key, nonce: hex("070000004041424344454647"), associatedData: ad, ciphertext: rfc) == plaintext)
        let sealed = try ChaChaPoly.seal(key: key, counter: 7, associatedData: ad, plaintext: plaintext)
        #expect(sealed.count == plaintext.count + 16)
        #expect(try ChaChaPoly.open(key: key, counter: 7, associatedData: ad, ciphertext: sealed) == plaintext)
        #expect(throws: CryptoError.authenticationFailed) { try ChaChaPoly.open(key: key, counter: 8, associatedData: ad, ciphertext: sealed) }
        #expect(throws: CryptoError.authenticationFailed) { try ChaChaPoly.open(key: key, counter: 7, associatedData: [], ciphertext: sealed) }
        var bent = sealed
        bent[0] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) { try ChaChaPoly.open(key: key, counter: 7, associatedData: ad, ciphertext: bent) }
        #expect(throws: CryptoError.authenticationFailed) { try ChaChaPoly.open(key: key, counter: 7, associatedData: ad, ciphertext: Array(sealed.prefix(15))) }
    }

    @Test func nonceIsFourZerosThenLittleEndianCounter() {
        #expect(ChaChaPoly.nonce(counter: 0) == [UInt8](repeating: 0, count: 12))
        #expect(ChaChaPoly.nonce(counter: 0x0102_0304_0506_0708) == [0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1])
    }

    @Test func hkdfMatchesNoiseDefinition() {
        // Recomputed from HMAC by hand: the spec's definition, not RFC 5869's.
        let ck = [UInt8](repeating: 1, count: 32)
        let ikm = [UInt8](repeating: 2, count: 32)
        let outputs = NoiseHKDF.derive(chainingKey: ck, inputKeyMaterial: ikm, outputs: 3)
        let temp = SHA256.hmac(key: ck, ikm)
        #expect(outputs[0] == SHA256.hmac(key: temp, [1]))
        #expect(outputs[1] == SHA256.hmac(key: temp, outputs[0] + [2]))
        #expect(outputs[2] == SHA256.hmac(key: temp, outputs[1] + [3]))
        #expect(NoiseHKDF.derive(chainingKey: ck, inputKeyMaterial: ikm, outputs: 2) == Array(outputs.prefix(2)))
    }
}
