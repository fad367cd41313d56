import ChatCore
import ChatCrypto
import Foundation

/// The Noise handshake of one transfer link, as a pure value (PROTOCOL.md,
/// "The transfer link"): the chat link's XX (or XXpsk0+psk3) with the
/// prologue `lanchat file v1`, the same identity payloads, and the
/// receiver's request (transfer id, offset) after its identity in message 3.
///
///     receiver (initiator)                 sender (responder)
///     start() -> message 1      ---->      answer(1) -> message 2
///     finish(2) -> message 3    ---->      accept(3) -> (peer, request)
///
/// Each side then checks that the verified key is the one its chat link
/// with that peer proved; this value only reports the key.
struct FileLinkHandshake: Sendable {
    static let prologue = Array("lanchat file v1".utf8)

    enum Failure: Error, Sendable, CustomStringConvertible {
        case crypto(CryptoError)
        case badRequest(String)
        var description: String {
            switch self {
            case .crypto(let error): "transfer handshake failed: \(error)"
            case .badRequest(let why): "transfer request refused: \(why)"
            }
        }
    }

    private var noise: NoiseHandshake
    private let credential: HandshakeIdentity.Credential
    private(set) var transport: NoiseTransport?

    init(role: NoiseHandshake.Role, credential: HandshakeIdentity.Credential, groupSecret: GroupSecret?) throws(CryptoError) {
        self.credential = credential
        noise = try NoiseHandshake(pattern: NoiseHandshake.lanchatPattern(hasGroupSecret: groupSecret != nil), role: role,
                                   prologue: Self.prologue, staticKey: credential.staticKey, psk: groupSecret?.psk)
    }

    /// Receiver: message 1.
    mutating func start() throws(CryptoError) -> [UInt8] {
        try noise.writeMessage()
    }

    /// Sender: reads message 1, returns message 2 (its identity, no request).
    mutating func answer(_ message: [UInt8]) throws(Failure) -> [UInt8] {
        do {
            let payload = try noise.readMessage(message)
            guard payload.isEmpty else { throw Failure.badRequest("message 1 carries a payload") }
            return try noise.writeMessage(credential: credential, hello: [])
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch let error as Failure {
            throw error
        } catch {
            throw .badRequest("\(error)")
        }
    }

    /// Receiver: reads message 2 (the sender's identity) and returns
    /// message 3 with `request`, and the sender's verified key.
    mutating func finish(_ message: [UInt8], request: FileLinkRequest) throws(Failure) -> (reply: [UInt8], peer: IdentityKey.Public) {
        do throws(CryptoError) {
            let verified = try noise.readIdentityMessage(message)
            let reply = try noise.writeMessage(credential: credential, hello: request.bytes)
            transport = try noise.split()
            return (reply, verified.identity)
        } catch {
            throw .crypto(error)
        }
    }

    /// Sender: reads message 3; the receiver's verified key and request.
    mutating func accept(_ message: [UInt8]) throws(Failure) -> (peer: IdentityKey.Public, request: FileLinkRequest) {
        let verified: HandshakeIdentity.Verified
        do throws(CryptoError) {
            verified = try noise.readIdentityMessage(message)
            transport = try noise.split()
        } catch {
            throw .crypto(error)
        }
        do {
            return (verified.identity, try FileLinkRequest(decoding: verified.hello))
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// Whether `key` is the base64 key a chat link proved (`PeerInfo.identityKey`).
    static func matches(_ key: IdentityKey.Public, base64: String) -> Bool {
        guard let expected = Data(base64Encoded: base64) else { return false }
        return Array(expected) == key.rawValue
    }
}
