import ChatCore
import ChatWire
import ChatCrypto

/// The protocol v2 handshake of one link, as a pure value: Noise XX (or
/// XXpsk0+psk3 with a group secret) carrying each side's identity payload and
/// hello (docs/PROTOCOL.md, 3.2 "The handshake and the hello"). It never touches a socket; the
/// service feeds it the handshake messages that arrive and writes the
/// messages it returns.
///
///     dialler (initiator)                  acceptor (responder)
///     start() -> message 1      ---->      read(1) -> .reply(message 2)
///     read(2) -> .peer(id, message 3) -->  read(3) -> .peer(id, nil)
///
/// Then both have `transport`; the acceptor accepts the link by sending
/// its first record, and the dialler's link is up when that record opens.
struct LinkHandshake: Sendable {
    /// What a handshake message did.
    enum Progress: Sendable {
        /// Send this message back; the peer is not known yet (responder, message 2).
        case reply([UInt8])
        /// The peer proved its identity; send `reply` if any (initiator, message 3).
        case peer(Peer, reply: [UInt8]?)
    }

    /// A verified peer: its key, the number that key derives, its hello.
    struct Peer: Sendable {
        let key: IdentityKey.Public
        let hello: P2PPayload
        var number: NodeNumber { key.nodeNumber }
    }

    enum Failure: Error, Sendable, CustomStringConvertible {
        /// Noise or the identity payload failed (wrong group secret, a
        /// replayed or tampered message, a bad signature).
        case crypto(CryptoError)
        /// Message 1 shows the dialler is in another group (or none, or
        /// this node is in none): it is told nothing.
        case groupMismatch(String)
        /// The hello inside a verified payload is not a valid hello.
        case badHello(String)
        /// The hello names a number other than the one its key derives.
        case claimedNumber(claimed: NodeNumber, derived: NodeNumber)

        var description: String {
            switch self {
            case .crypto(let error): "handshake failed: \(error)"
            case .groupMismatch(let why): "group secrets differ: \(why)"
            case .badHello(let why): "hello refused: \(why)"
            case .claimedNumber(let claimed, let derived): "hello claims number \(claimed), but its key derives \(derived)"
            }
        }
    }

    let role: NoiseHandshake.Role
    private let hasGroup: Bool
    private var noise: NoiseHandshake
    private let credential: HandshakeIdentity.Credential
    private let hello: [UInt8]
    /// A responder has read message 1 and answered it.
    private var answeredFirst = false
    /// Set once the last message is read or written.
    private(set) var transport: NoiseTransport?

    /// - Parameters:
    ///   - credential: this run's Noise static key with the identity's
    ///     signature over it, sent in this side's identity payload.
    ///   - hello: this side's hello frame (JSON, no newline), sent inside its
    ///     identity payload.
    init(role: NoiseHandshake.Role, credential: HandshakeIdentity.Credential, groupSecret: GroupSecret?,
         hello: [UInt8]) throws(CryptoError) {
        self.role = role
        self.credential = credential
        self.hello = hello
        hasGroup = groupSecret != nil
        noise = try .lanchat(role: role, staticKey: credential.staticKey, groupSecret: groupSecret)
    }

    /// With a fresh static key signed by `identity` (tests).
    init(role: NoiseHandshake.Role, identity: IdentityKey, groupSecret: GroupSecret?, hello: [UInt8]) throws(CryptoError) {
        try self.init(role: role, credential: HandshakeIdentity.Credential(identity: identity), groupSecret: groupSecret, hello: hello)
    }

    var isFinished: Bool { transport != nil }

    /// The dialler's first message (an ephemeral key, no payload).
    mutating func start() throws(CryptoError) -> [UInt8] {
        try noise.writeMessage()
    }

    /// Reads the peer's next handshake message.
    mutating func read(_ message: [UInt8]) throws(Failure) -> Progress {
        let verified: HandshakeIdentity.Verified
        var reply: [UInt8]?
        if role == .responder, !answeredFirst {
            return .reply(try answerFirst(message))
        }
        do throws(CryptoError) {
            verified = try noise.readIdentityMessage(message)
            if role == .initiator { reply = try noise.writeMessage(credential: credential, hello: hello) }
            transport = try noise.split()
        } catch {
            throw .crypto(error)
        }
        return .peer(try Self.peer(from: verified), reply: reply)
    }

    /// Message 2 for the dialler's message 1, whose payload is empty: with
    /// a group secret an encrypted empty payload (psk0), else nothing.
    private mutating func answerFirst(_ message: [UInt8]) throws(Failure) -> [UInt8] {
        let payload: [UInt8]
        do {
            payload = try noise.readMessage(message)
        } catch {
            guard hasGroup else { throw .crypto(error) }
            throw .groupMismatch("its message 1 does not open with this node's group secret")
        }
        guard payload.isEmpty else {
            throw hasGroup ? .crypto(.malformedPayload("message 1 carries a payload"))
                : .groupMismatch("it has a group secret and this node has none")
        }
        answeredFirst = true
        do {
            return try noise.writeMessage(credential: credential, hello: hello)
        } catch {
            throw .crypto(error)
        }
    }

    /// The verified identity with its hello, if the hello is a hello and
    /// names the number the key derives.
    private static func peer(from verified: HandshakeIdentity.Verified) throws(Failure) -> Peer {
        let hello: P2PPayload
        do {
            hello = try P2PFrameCodec.decode(verified.hello)
        } catch {
            throw .badHello("\(error)")
        }
        guard hello.type == .hello else { throw .badHello("a \(hello.type) frame in place of the hello") }
        let derived = verified.identity.nodeNumber
        guard hello.senderNumber == derived else { throw .claimedNumber(claimed: hello.senderNumber, derived: derived) }
        return Peer(key: verified.identity, hello: hello)
    }
}
