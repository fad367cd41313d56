import ChatCore
@testable import ChatCrypto

/// Fuzz target: `NoiseHandshake.readMessage` / `readIdentityMessage`, what
/// a peer's first bytes reach. Keys and ephemerals are fixed so a crash
/// input replays exactly.
///
/// Input: byte 0 picks the message read (0: message 1 at the responder,
/// 1: message 2 at the initiator, 2: message 3 at the responder) and its
/// form (bit 2 clear: the rest XORed onto the genuine message, resized to
/// the rest's length; set: the rest as is); byte 1 bit 0 picks XX or
/// XXpsk0+psk3, the two patterns a lanchat link uses (no group secret, a
/// group secret). Invariants: nothing crashes; messages 2 and 3, and
/// message 1 of XXpsk0+psk3, are accepted exactly when they equal the
/// genuine message (AEAD plus signature), and then yield the genuine
/// identity and hello.
@_cdecl("LLVMFuzzerTestOneInput")
public func handshakeReadingFuzzTarget(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count >= 2 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    let stage = Int(input[0] & 0x03) % 3
    let raw = input[0] & 0x04 != 0
    let pattern: NoisePattern = input[1] & 1 == 0 ? .XX : .XXpsk0psk3
    let body = Array(input[2...])
    let psk: [UInt8]? = pattern.usesPSK ? [UInt8](repeating: 0x5A, count: 32) : nil
    let fixture = Fixture.shared

    guard var initiator = try? NoiseHandshake(pattern: pattern, role: .initiator, prologue: [1], staticKey: fixture.staticKeys[0],
                                              psk: psk, ephemeralKey: fixture.ephemerals[0]),
          var responder = try? NoiseHandshake(pattern: pattern, role: .responder, prologue: [1], staticKey: fixture.staticKeys[1],
                                              psk: psk, ephemeralKey: fixture.ephemerals[1])
    else { fatalError("fixture handshakes") }
    let hello = Array("fuzz".utf8)

    func candidate(_ genuine: [UInt8]) -> [UInt8] {
        if raw { return body }
        return body.indices.map { $0 < genuine.count ? genuine[$0] ^ body[$0] : body[$0] }
    }

    do {
        let m1 = try initiator.writeMessage()
        if stage == 0 {
            let message = candidate(m1)
            let accepted = (try? responder.readMessage(message)) != nil
            if pattern.usesPSK {
                // psk0 encrypts message 1's empty payload: only the genuine
                // 48 bytes open its tag, so another group is refused here.
                fuzzCheck(accepted == (message == m1), "message 1 accepted: \(accepted), genuine: \(message == m1)")
            } else {
                // XX: any 32 bytes and more are a valid message 1 (e is not
                // checked until a DH, the payload is in clear).
                fuzzCheck(accepted == (message.count >= 32), "message 1 of \(message.count) bytes accepted: \(accepted)")
            }
            if accepted {
                // The responder must still answer or fail cleanly.
                _ = try? responder.writeMessage(identity: fixture.identities[1], hello: hello)
            }
            return 0
        }
        _ = try responder.readMessage(m1)
        let m2 = try responder.writeMessage(identity: fixture.identities[1], hello: hello)
        if stage == 1 {
            let message = candidate(m2)
            let verified = try? initiator.readIdentityMessage(message)
            fuzzCheck((verified != nil) == (message == m2), "message 2 accepted: \(verified != nil), genuine: \(message == m2)")
            if let verified {
                fuzzCheck(verified.identity == fixture.identities[1].publicKey && verified.hello == hello, "wrong identity or hello")
            }
            return 0
        }
        _ = try initiator.readIdentityMessage(m2)
        let m3 = try initiator.writeMessage(identity: fixture.identities[0], hello: hello)
        let message = candidate(m3)
        let verified = try? responder.readIdentityMessage(message)
        fuzzCheck((verified != nil) == (message == m3), "message 3 accepted: \(verified != nil), genuine: \(message == m3)")
        if verified != nil {
            fuzzCheck(responder.isFinished && (try? responder.split()) != nil, "finished handshake does not split")
        }
    } catch {
        fatalError("the genuine handshake failed: \(error)")
    }
    return 0
}

/// Fixed keys, made once per process.
private struct Fixture: Sendable {
    static let shared = Fixture()
    let staticKeys: [X25519KeyPair]
    let ephemerals: [X25519KeyPair]
    let identities: [IdentityKey]

    init() {
        func bytes(_ value: UInt8) -> [UInt8] { [UInt8](repeating: value, count: 32) }
        staticKeys = [try! X25519KeyPair(privateKey: bytes(1)), try! X25519KeyPair(privateKey: bytes(2))]
        ephemerals = [try! X25519KeyPair(privateKey: bytes(3)), try! X25519KeyPair(privateKey: bytes(4))]
        identities = [try! IdentityKey(seed: bytes(5)), try! IdentityKey(seed: bytes(6))]
    }
}
