import CCrypto
import ChatCore
import ChatWire
import ChatCrypto
import Foundation

/// The link's cryptography alone, beside raw libcrypto doing the same work:
/// a whole Noise XX handshake with identity payloads (both sides, one
/// core), and sealing + opening chat-sized records.
enum CryptoRows {
    /// A public-message frame is ~250 bytes of JSON.
    static let frameSize = 256

    static func run(quick: Bool) throws -> [BenchRow] {
        [try handshake(quick: quick), try records(quick: quick)]
    }

    /// p50/p99 of one full handshake as a link runs it (`LinkHandshake`
    /// in P2PTransport, internal there, so mirrored here step by step):
    /// each side's static key signed once (its run's credential), 3
    /// messages, 2 identity payloads with real hello frames, the hellos
    /// decoded, split; vs the same public-key operations as bare EVP calls
    /// on prebuilt keys: 2 X25519 keygens (the ephemerals), 6 derives (3
    /// per side) and 2 Ed25519 verifies.
    static func handshake(quick: Bool) throws -> BenchRow {
        let rounds = quick ? 200 : 2000
        let samples = try handshakeSamples(rounds: rounds)
        let signing = try handshakeSamples(rounds: rounds, signPerHandshake: true)
        var raw = try RawHandshakeWork()
        var baseline: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            try raw.once()
            baseline.append(Measure.micros(ContinuousClock.now - start))
        }
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let b50 = Measure.percentile(baseline, 0.5), b99 = Measure.percentile(baseline, 0.99)
        let s50 = Measure.percentile(signing, 0.5), s99 = Measure.percentile(signing, 0.99)
        return BenchRow(
            key: "crypto", figure: "Noise XX handshake with identities and hellos, both sides on one core: p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "\(Measure.ms(b50)) / \(Measure.ms(b99)) raw EVP public-key ops", target: "-", met: nil,
            numbers: ["p50_us": p50, "p99_us": p99, "raw_p50_us": b50, "raw_p99_us": b99, "rounds": Double(rounds),
                      "signed_per_handshake_p50_us": s50, "signed_per_handshake_p99_us": s99],
            note: "a node signs its static key once per run (HandshakeIdentity.Credential), so a handshake costs 10 public-key operations; with a fresh static key signed in each handshake, as before 2026-11-23: \(Measure.ms(s50)) / \(Measure.ms(s99))")
    }

    /// Microseconds per handshake, both sides in this thread, as
    /// `LinkHandshake` does it (see `handshake`).
    /// `signPerHandshake`: each side makes a fresh static key and signs it
    /// in every handshake (the protocol before credentials), 4 public-key
    /// operations more.
    static func handshakeSamples(rounds: Int, signPerHandshake: Bool = false) throws -> [Double] {
        let identities = [try IdentityKey.generate(), try IdentityKey.generate()]
        let credentials = try identities.map { key throws(CryptoError) in try HandshakeIdentity.Credential(identity: key) }
        let hellos = identities.map { key -> [UInt8] in
            var hello = P2PPayload(type: .hello, messageId: MessageID(millis: 1_732_147_200_000, random: (1, 2)),
                                   senderNumber: key.nodeNumber, senderNickname: "bench", content: "", timestamp: 1_732_147_200_000)
            hello.instanceId = UUID().uuidString.lowercased()
            hello.listenPort = 40_000
            hello.capabilities = ["ack", "history"]
            return Array(P2PFrameCodec.encode(hello).dropLast())
        }
        var samples: [Double] = []
        samples.reserveCapacity(rounds)
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            let sides = signPerHandshake ? try identities.map { key throws(CryptoError) in try HandshakeIdentity.Credential(identity: key) } : credentials
            var initiator = try NoiseHandshake.lanchat(role: .initiator, staticKey: sides[0].staticKey, groupSecret: nil)
            var responder = try NoiseHandshake.lanchat(role: .responder, staticKey: sides[1].staticKey, groupSecret: nil)
            _ = try responder.readMessage(try initiator.writeMessage())
            let second = try initiator.readIdentityMessage(try responder.writeMessage(credential: sides[1], hello: hellos[1]))
            let third = try responder.readIdentityMessage(try initiator.writeMessage(credential: sides[0], hello: hellos[0]))
            for verified in [second, third] {
                let hello = try P2PFrameCodec.decode(verified.hello)
                precondition(hello.senderNumber == verified.identity.nodeNumber)
            }
            _ = try initiator.split()
            _ = try responder.split()
            samples.append(Measure.micros(ContinuousClock.now - start))
        }
        return samples
    }

    /// Records per second sealed then opened (RecordCipher, as a link does)
    /// vs one reused EVP_CIPHER_CTX per direction doing the same AEAD.
    static func records(quick: Bool) throws -> BenchRow {
        let count = quick ? 50_000 : 300_000
        let plaintext = [UInt8](repeating: 0x61, count: frameSize)
        var (sender, receiver) = try transportPair()
        let start = ContinuousClock.now
        for _ in 0..<count {
            let opened = try receiver.open(try sender.seal(plaintext))
            precondition(opened.count == frameSize)
        }
        let rate = Double(count) / Measure.seconds(ContinuousClock.now - start)
        var raw = try RawAEAD(key: [UInt8](repeating: 7, count: 32))
        let rawStart = ContinuousClock.now
        for counter in 0..<UInt64(count) { try raw.sealAndOpen(plaintext, counter: counter) }
        let rawRate = Double(count) / Measure.seconds(ContinuousClock.now - rawStart)
        let megabytes = { (perSecond: Double) in String(format: "%.0f MB/s", perSecond * Double(frameSize) / 1e6) }
        return BenchRow(
            key: "crypto", figure: "records sealed + opened, \(frameSize)-byte frames, one core",
            value: "\(Measure.rate(rate)) (\(megabytes(rate)))", baseline: "\(Measure.rate(rawRate)) (\(megabytes(rawRate))) raw EVP",
            target: "-", met: nil, numbers: ["per_second": rate, "raw_per_second": rawRate, "frame_bytes": Double(frameSize)])
    }
}

extension CryptoRows {
    /// Both ends of a fresh XX session: the dialler's and the acceptor's
    /// record ciphers, so one seals what the other opens.
    static func transportPair() throws -> (sender: NoiseTransport, receiver: NoiseTransport) {
        var initiator = try NoiseHandshake.lanchat(role: .initiator, staticKey: .generate(), groupSecret: nil)
        var responder = try NoiseHandshake.lanchat(role: .responder, staticKey: .generate(), groupSecret: nil)
        _ = try responder.readMessage(try initiator.writeMessage())
        _ = try initiator.readMessage(try responder.writeMessage())
        _ = try responder.readMessage(try initiator.writeMessage())
        return (try initiator.split(), try responder.split())
    }
}

/// The public-key work of one XX handshake as bare EVP calls on keys built
/// once: what the wrapper and the Noise bookkeeping are measured against.
private struct RawHandshakeWork {
    let x25519Peer: OpaquePointer
    let x25519Own: OpaquePointer
    let ed25519: OpaquePointer
    var out = [UInt8](repeating: 0, count: 64)
    var signature = [UInt8](repeating: 0, count: 64)

    init() throws {
        x25519Own = try Self.key(CCRYPTO_PKEY_X25519)
        x25519Peer = try Self.key(CCRYPTO_PKEY_X25519)
        ed25519 = try Self.key(CCRYPTO_PKEY_ED25519)
        // Signed once, as a node signs its credential once per run.
        let sign = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(sign) }
        var length = 64
        guard EVP_DigestSignInit(sign, nil, nil, nil, ed25519) == 1,
              EVP_DigestSign(sign, &signature, &length, Self.message, Self.message.count) == 1 else { throw CryptoError.invalidSignature }
    }

    static let message = [UInt8](repeating: 1, count: 53)

    static func key(_ type: Int32) throws -> OpaquePointer {
        let ctx = EVP_PKEY_CTX_new_id(type, nil)
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw CryptoError.nonceExhausted }
        return key
    }

    mutating func once() throws {
        for _ in 0..<2 { EVP_PKEY_free(try Self.key(CCRYPTO_PKEY_X25519)) }
        for _ in 0..<6 {
            let ctx = EVP_PKEY_CTX_new(x25519Own, nil)
            var length = 32
            guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, x25519Peer) == 1,
                  EVP_PKEY_derive(ctx, &out, &length) == 1 else { throw CryptoError.invalidPublicKey }
            EVP_PKEY_CTX_free(ctx)
        }
        for _ in 0..<2 {
            let verify = EVP_MD_CTX_new()
            guard EVP_DigestVerifyInit(verify, nil, nil, nil, ed25519) == 1,
                  EVP_DigestVerify(verify, signature, 64, Self.message, Self.message.count) == 1 else { throw CryptoError.invalidSignature }
            EVP_MD_CTX_free(verify)
        }
    }
}

/// ChaCha20-Poly1305 with one context per direction, only the nonce reset
/// per record: the least libcrypto can do for a record.
struct RawAEAD {
    let encrypt: OpaquePointer
    let decrypt: OpaquePointer
    var sealed = [UInt8](repeating: 0, count: 70_000)
    var opened = [UInt8](repeating: 0, count: 70_000)
    var tag = [UInt8](repeating: 0, count: 16)

    init(key: [UInt8]) throws {
        encrypt = EVP_CIPHER_CTX_new()
        decrypt = EVP_CIPHER_CTX_new()
        for (ctx, mode) in [(encrypt, Int32(1)), (decrypt, Int32(0))] {
            guard EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), nil, key, [UInt8](repeating: 0, count: 12), mode) == 1 else {
                throw CryptoError.nonceExhausted
            }
        }
    }

    mutating func sealAndOpen(_ plaintext: [UInt8], counter: UInt64) throws {
        let nonce = ChaChaPoly.nonce(counter: counter)
        var length: Int32 = 0
        guard EVP_CipherInit_ex(encrypt, nil, nil, nil, nonce, 1) == 1,
              EVP_EncryptUpdate(encrypt, &sealed, &length, plaintext, Int32(plaintext.count)) == 1,
              EVP_EncryptFinal_ex(encrypt, &sealed, &length) == 1,
              EVP_CIPHER_CTX_ctrl(encrypt, CCRYPTO_CTRL_AEAD_GET_TAG, 16, &tag) == 1 else { throw CryptoError.authenticationFailed }
        guard EVP_CipherInit_ex(decrypt, nil, nil, nil, nonce, 0) == 1,
              EVP_CIPHER_CTX_ctrl(decrypt, CCRYPTO_CTRL_AEAD_SET_TAG, 16, &tag) == 1,
              EVP_DecryptUpdate(decrypt, &opened, &length, sealed, Int32(plaintext.count)) == 1,
              EVP_DecryptFinal_ex(decrypt, &opened, &length) == 1 else { throw CryptoError.authenticationFailed }
    }
}
