import Testing
@testable import ChatCrypto

/// Full handshakes with identities between two in-memory sides, and the
/// ways a hostile peer could try to get one accepted.
@Suite struct HandshakeTests {
    struct Side {
        var noise: NoiseHandshake
        let identity: IdentityKey
    }

    static func pair(_ pattern: NoisePattern = .XX, initiatorPSK: [UInt8]? = nil, responderPSK: [UInt8]? = nil,
                     prologue: [UInt8] = Array("lanchat/2".utf8)) throws -> (Side, Side) {
        let initiator = Side(noise: try NoiseHandshake(pattern: pattern, role: .initiator, prologue: prologue,
                                                       staticKey: .generate(), psk: initiatorPSK), identity: try .generate())
        let responder = Side(noise: try NoiseHandshake(pattern: pattern, role: .responder, prologue: prologue,
                                                       staticKey: .generate(), psk: responderPSK), identity: try .generate())
        return (initiator, responder)
    }

    /// Runs the three XX messages; returns what each side verified.
    static func run(_ i: inout Side, _ r: inout Side) throws -> (ofResponder: HandshakeIdentity.Verified, ofInitiator: HandshakeIdentity.Verified) {
        let m1 = try i.noise.writeMessage()
        #expect(try r.noise.readMessage(m1) == [])
        let m2 = try r.noise.writeMessage(identity: r.identity, hello: Array("hello from r".utf8))
        let ofResponder = try i.noise.readIdentityMessage(m2)
        let m3 = try i.noise.writeMessage(identity: i.identity, hello: Array("hello from i".utf8))
        let ofInitiator = try r.noise.readIdentityMessage(m3)
        return (ofResponder, ofInitiator)
    }

    /// Every link pattern (X is one message, one way: `SealedEnvelopeTests`).
    @Test(arguments: NoisePattern.allCases.filter { !$0.isOneWay })
    func identitiesAreExchangedAndVerified(_ pattern: NoisePattern) throws {
        let psk: [UInt8]? = pattern.usesPSK ? try SecureRandom.bytes(32) : nil
        var (i, r) = try Self.pair(pattern, initiatorPSK: psk, responderPSK: psk)
        let (ofResponder, ofInitiator) = try Self.run(&i, &r)
        #expect(ofResponder.identity == r.identity.publicKey)
        #expect(ofResponder.hello == Array("hello from r".utf8))
        #expect(ofInitiator.identity == i.identity.publicKey)
        #expect(ofInitiator.hello == Array("hello from i".utf8))
        #expect(i.noise.isFinished && r.noise.isFinished)
        #expect(i.noise.remoteStaticKey == r.noise.localStaticPublicKey)
        var it = try i.noise.split()
        var rt = try r.noise.split()
        #expect(it.handshakeHash == rt.handshakeHash)
        #expect(try rt.open(it.seal([1, 2, 3])) == [1, 2, 3])
        #expect(try it.open(rt.seal([4])) == [4])
    }

    static func group(_ word: String) throws -> GroupSecret { try GroupSecret(fileContents: Array(word.utf8)) }

    @Test func aGroupHandshakeSendsFortyEightBytesFirstAndFinishes() throws {
        var i = try NoiseHandshake.lanchat(role: .initiator, staticKey: .generate(), groupSecret: Self.group("ours"))
        var r = try NoiseHandshake.lanchat(role: .responder, staticKey: .generate(), groupSecret: Self.group("ours"))
        #expect(i.pattern == .XXpsk0psk3)
        let m1 = try i.writeMessage()
        #expect(m1.count == 32 + 16)  // e, then the empty payload's tag under a psk-derived key
        #expect(try r.readMessage(m1) == [])
        #expect(try i.readIdentityMessage(try r.writeMessage(identity: .generate(), hello: [1])).hello == [1])
        #expect(try r.readIdentityMessage(try i.writeMessage(identity: .generate(), hello: [2])).hello == [2])
        #expect(i.isFinished && r.isFinished && i.handshakeHash == r.handshakeHash)

        var open = try NoiseHandshake.lanchat(role: .initiator, staticKey: .generate(), groupSecret: nil)
        #expect(open.pattern == .XX)
        #expect(try open.writeMessage().count == 32)
    }

    /// Issue #13: a node with the wrong secret is told nothing about the
    /// group. psk0 keys message 1, so the responder fails there and never
    /// writes message 2 (its static key and identity).
    @Test func aResponderWithAnotherSecretFailsOnMessageOne() throws {
        var i = try NoiseHandshake.lanchat(role: .initiator, staticKey: .generate(), groupSecret: Self.group("outsiders"))
        var r = try NoiseHandshake.lanchat(role: .responder, staticKey: .generate(), groupSecret: Self.group("ours"))
        let m1 = try i.writeMessage()
        #expect(throws: CryptoError.authenticationFailed) { try r.readMessage(m1) }
        #expect(throws: CryptoError.self) { try r.writeMessage(identity: .generate(), hello: Array("bob".utf8)) }
    }

    @Test func aDiallerWithoutASecretFailsAtAGroupResponder() throws {
        var i = try NoiseHandshake.lanchat(role: .initiator, staticKey: .generate(), groupSecret: nil)
        let m1 = try i.writeMessage()
        var r = try NoiseHandshake.lanchat(role: .responder, staticKey: .generate(), groupSecret: Self.group("ours"))
        #expect(throws: CryptoError.messageTooShort(expected: 48, got: 32)) { try r.readMessage(m1) }
        #expect(throws: CryptoError.self) { try r.writeMessage(identity: .generate(), hello: []) }
        // Nor does a guessed 16-byte tag after its e get an answer.
        for _ in 0..<8 {
            let guess = m1 + (try SecureRandom.bytes(16))
            var fresh = try NoiseHandshake.lanchat(role: .responder, staticKey: .generate(), groupSecret: Self.group("ours"))
            #expect(throws: CryptoError.authenticationFailed) { try fresh.readMessage(guess) }
        }
    }

    @Test func differentGroupSecretsNeverFinish() throws {
        var (i, r) = try Self.pair(.XXpsk0psk3, initiatorPSK: [UInt8](repeating: 1, count: 32),
                                   responderPSK: [UInt8](repeating: 2, count: 32))
        // psk0: the mismatch surfaces at message 1, before the responder says anything.
        let m1 = try i.noise.writeMessage()
        #expect(throws: CryptoError.authenticationFailed) { try r.noise.readMessage(m1) }
    }

    /// Why the group pattern is not XXpsk3 alone: its psk enters only at the
    /// end of message 3, so a dialler with the wrong psk reads the
    /// responder's identity and hello from message 2; only message 3 fails.
    @Test func psk3AloneTellsAWrongSecretTheResponderIdentity() throws {
        var (i, r) = try Self.pair(.XXpsk3, initiatorPSK: [UInt8](repeating: 1, count: 32),
                                   responderPSK: [UInt8](repeating: 2, count: 32))
        _ = try r.noise.readMessage(try i.noise.writeMessage())
        let leaked = try i.noise.readIdentityMessage(try r.noise.writeMessage(identity: r.identity, hello: Array("bob".utf8)))
        #expect(leaked.identity == r.identity.publicKey && leaked.hello == Array("bob".utf8))
        let m3 = try i.noise.writeMessage(identity: i.identity, hello: [])
        #expect(throws: CryptoError.authenticationFailed) { try r.noise.readIdentityMessage(m3) }
    }

    @Test func pskPatternNeedsAPSKAndXXRefusesOne() {
        for pattern in NoisePattern.allCases where pattern.usesPSK {
            #expect(throws: CryptoError.self) { try NoiseHandshake(pattern: pattern, role: .initiator, staticKey: .generate()) }
            #expect(throws: CryptoError.self) {
                try NoiseHandshake(pattern: pattern, role: .initiator, staticKey: .generate(), psk: [1, 2])
            }
        }
        #expect(throws: CryptoError.self) {
            try NoiseHandshake(pattern: .XX, role: .initiator, staticKey: .generate(), psk: [UInt8](repeating: 0, count: 32))
        }
        // With a list, exactly one psk per psk token.
        let key = [UInt8](repeating: 3, count: 32)
        for psks in [[key], [key, key, key]] {
            #expect(throws: CryptoError.self) {
                try NoiseHandshake(pattern: .XXpsk0psk3, role: .initiator, prologue: [], staticKey: .generate(),
                                   psks: psks, ephemeralKey: nil)
            }
        }
        #expect(throws: CryptoError.self) {
            try NoiseHandshake(pattern: .XXpsk0psk3, role: .initiator, prologue: [], staticKey: .generate(),
                               psks: [key, [1]], ephemeralKey: nil)
        }
    }

    /// X's initiator must know the responder's static key beforehand; no
    /// other side or pattern takes one (it would be silently ignored).
    @Test func onlyXsInitiatorTakesARemoteStaticKey() throws {
        let remote = try X25519KeyPair.generate().publicKey
        #expect(throws: CryptoError.self) { try NoiseHandshake(pattern: .X, role: .initiator, staticKey: .generate()) }
        #expect(throws: CryptoError.self) {
            try NoiseHandshake(pattern: .X, role: .initiator, staticKey: .generate(), remoteStaticKey: [1, 2])
        }
        #expect(throws: CryptoError.self) {
            try NoiseHandshake(pattern: .X, role: .responder, staticKey: .generate(), remoteStaticKey: remote)
        }
        #expect(throws: CryptoError.self) {
            try NoiseHandshake(pattern: .XX, role: .initiator, staticKey: .generate(), remoteStaticKey: remote)
        }
        var x = try NoiseHandshake(pattern: .X, role: .initiator, staticKey: .generate(), remoteStaticKey: remote)
        _ = try x.writeMessage()
        #expect(x.isFinished)
    }

    /// Sealed to the wrong static key, X's one message does not open.
    @Test func xToAnotherStaticKeyFails() throws {
        let responderKey = try X25519KeyPair.generate()
        var initiator = try NoiseHandshake(pattern: .X, role: .initiator, staticKey: .generate(),
                                           remoteStaticKey: X25519KeyPair.generate().publicKey)
        var responder = try NoiseHandshake(pattern: .X, role: .responder, staticKey: responderKey)
        #expect(throws: CryptoError.authenticationFailed) { try responder.readMessage(try initiator.writeMessage([1])) }
    }

    @Test func differentProloguesFail() throws {
        var (i, _) = try Self.pair(prologue: [1])
        var (_, r) = try Self.pair(prologue: [2])
        _ = try r.noise.readMessage(try i.noise.writeMessage())
        let m2 = try r.noise.writeMessage(identity: r.identity, hello: [])
        #expect(throws: CryptoError.authenticationFailed) { try i.noise.readIdentityMessage(m2) }
    }

    @Test func everyBitFlipInMessagesTwoAndThreeIsRefused() throws {
        var (i, r) = try Self.pair()
        _ = try r.noise.readMessage(try i.noise.writeMessage())
        let m2 = try r.noise.writeMessage(identity: r.identity, hello: [9])
        for index in m2.indices {
            var copy = i
            var bent = m2
            bent[index] ^= 0x01
            #expect(throws: CryptoError.self) { try copy.noise.readIdentityMessage(bent) }
        }
        _ = try i.noise.readIdentityMessage(m2)
        let m3 = try i.noise.writeMessage(identity: i.identity, hello: [])
        for index in stride(from: 0, to: m3.count, by: 7) {
            var copy = r
            var bent = m3
            bent[index] ^= 0x80
            #expect(throws: CryptoError.self) { try copy.noise.readIdentityMessage(bent) }
        }
    }

    @Test func truncatedAndOversizeMessagesAreRefused() throws {
        var (i, r) = try Self.pair()
        let m1 = try i.noise.writeMessage()
        var copy = r
        #expect(throws: CryptoError.messageTooShort(expected: 32, got: 31)) { try copy.noise.readMessage(Array(m1.prefix(31))) }
        copy = r
        #expect(throws: CryptoError.messageTooLarge(limit: 65_535, got: 65_536)) {
            try copy.noise.readMessage([UInt8](repeating: 0, count: 65_536))
        }
        _ = try r.noise.readMessage(m1)
        let m2 = try r.noise.writeMessage(identity: r.identity, hello: [])
        #expect(throws: CryptoError.self) { try i.noise.readIdentityMessage(Array(m2.prefix(90))) }
        // A failed handshake is not usable again, even with the right bytes.
        #expect(throws: CryptoError.self) { try i.noise.readIdentityMessage(m2) }
    }

    @Test func outOfTurnCallsThrow() throws {
        var (i, r) = try Self.pair()
        #expect(throws: CryptoError.self) { try r.noise.writeMessage() }
        #expect(throws: CryptoError.self) { try i.noise.readMessage([UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoError.self) { try i.noise.split() }
        #expect(i.noise.isMyTurnToWrite && !r.noise.isMyTurnToWrite)
        _ = try Self.run(&i, &r)
        #expect(throws: CryptoError.self) { try i.noise.writeMessage() }
        #expect(!i.noise.isMyTurnToWrite)
    }

    @Test func oversizePayloadIsRefusedWhenWriting() throws {
        var (i, _) = try Self.pair()
        #expect(throws: CryptoError.messageTooLarge(limit: 65_535, got: 65_536)) {
            try i.noise.writeMessage([UInt8](repeating: 0, count: 65_536 - 32))
        }
    }

    @Test func aCredentialIsSignedOnceAndServesEveryHandshake() throws {
        // A node signs its static key once per run; the same payload bytes
        // then verify in any number of sessions that use that static key.
        let identity = try IdentityKey.generate()
        let credential = try HandshakeIdentity.Credential(identity: identity)
        var payloads: [[UInt8]] = []
        for _ in 0..<3 {
            var i = try NoiseHandshake(pattern: .XX, role: .initiator, staticKey: .generate())
            var r = try NoiseHandshake(pattern: .XX, role: .responder, staticKey: credential.staticKey)
            _ = try r.readMessage(try i.writeMessage())
            let verified = try i.readIdentityMessage(try r.writeMessage(credential: credential, hello: [7]))
            #expect(verified.identity == identity.publicKey && verified.hello == [7])
            payloads.append(credential.payload(hello: [7]))
        }
        #expect(Set(payloads).count == 1)
    }

    @Test func aCredentialForAnotherStaticKeyIsNotSent() throws {
        var (_, r) = try Self.pair()
        let credential = try HandshakeIdentity.Credential(identity: r.identity)  // a fresh static key, not r's
        #expect(throws: CryptoError.credentialMismatch) { try r.noise.writeMessage(credential: credential, hello: []) }
    }

    @Test func aStolenCredentialWithTheThiefsStaticKeyIsRefused() throws {
        // A peer replays the identity payload another node sent in an earlier
        // session. With its own static key the signature does not cover the
        // key the handshake authenticated; it cannot use the victim's static
        // key without its private half (the DH tokens would not match, see
        // aRecordedHandshakeReplayedToAFreshResponderFails).
        let victim = try HandshakeIdentity.Credential(identity: .generate())
        let recorded = victim.payload(hello: Array("i am the victim".utf8))
        var i = try NoiseHandshake(pattern: .XX, role: .initiator, staticKey: .generate())
        var thief = try NoiseHandshake(pattern: .XX, role: .responder, staticKey: .generate())
        _ = try thief.readMessage(try i.writeMessage())
        let m2 = try thief.writeMessage(recorded)
        #expect(throws: CryptoError.invalidSignature) { try i.readIdentityMessage(m2) }
    }

    @Test func identityBoundToAnotherStaticKeyIsRefused() throws {
        var (i, r) = try Self.pair()
        _ = try r.noise.readMessage(try i.noise.writeMessage())
        let other = try HandshakeIdentity.Credential(identity: r.identity)
        let m2 = try r.noise.writeMessage(other.payload(hello: []))
        #expect(throws: CryptoError.invalidSignature) { try i.noise.readIdentityMessage(m2) }
    }

    @Test func aRecordedHandshakeReplayedToAFreshResponderFails() throws {
        // An attacker who recorded messages 1 and 3 of a real session replays
        // them to the same responder later: its new ephemeral changes every
        // key, so message 3 does not decrypt and no link forms.
        var (i, r) = try Self.pair()
        let responderStatic = try X25519KeyPair.generate()
        r.noise = try NoiseHandshake(pattern: .XX, role: .responder, prologue: Array("lanchat/2".utf8), staticKey: responderStatic)
        let m1 = try i.noise.writeMessage()
        _ = try r.noise.readMessage(m1)
        _ = try i.noise.readIdentityMessage(try r.noise.writeMessage(identity: r.identity, hello: []))
        let m3 = try i.noise.writeMessage(identity: i.identity, hello: [])
        _ = try r.noise.readIdentityMessage(m3)

        var fresh = try NoiseHandshake(pattern: .XX, role: .responder, prologue: Array("lanchat/2".utf8), staticKey: responderStatic)
        _ = try fresh.readMessage(m1)
        _ = try fresh.writeMessage(identity: r.identity, hello: [])
        #expect(throws: CryptoError.authenticationFailed) { try fresh.readIdentityMessage(m3) }
    }

    @Test func shortIdentityPayloadIsMalformed() throws {
        #expect(throws: CryptoError.self) {
            try HandshakeIdentity.verify([UInt8](repeating: 0, count: 95), remoteStaticKey: [UInt8](repeating: 0, count: 32))
        }
    }
}
