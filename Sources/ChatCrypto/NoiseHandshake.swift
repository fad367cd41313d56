/// A Noise HandshakeState (spec rev 34, section 5.3) for the patterns in
/// `NoisePattern` (XX, XXpsk3, XXpsk0+psk3, X) with
/// 25519, ChaChaPoly and SHA256: a pure value with no I/O. Each side calls
/// `writeMessage` and `readMessage` in turn (initiator writes first) until
/// `isFinished`, then `split()` gives the transport ciphers.
///
/// Any error leaves the handshake unusable; the caller drops the link.
/// Messages are at most 65535 bytes (`maxMessageLength`).
public struct NoiseHandshake: Sendable {
    public static let maxMessageLength = 65_535
    static let dhLength = 32

    public enum Role: Sendable { case initiator, responder }

    public let pattern: NoisePattern
    public let role: Role
    private var symmetric: SymmetricState
    let localStatic: X25519KeyPair
    private var localEphemeral: X25519KeyPair?
    /// One psk per `psk` token, used in order.
    private let psks: [[UInt8]]
    private var nextPSK = 0
    public private(set) var remoteStaticKey: [UInt8]?
    private var remoteEphemeral: [UInt8]?
    /// Index of the next message in the pattern.
    private var messageIndex = 0
    private var failed = false

    /// - Parameters:
    ///   - prologue: bytes both sides must agree on (mixed into the hash).
    ///   - staticKey: this node's Noise static key.
    ///   - psk: 32 bytes, required by (and only allowed with) a psk pattern;
    ///     used at every `psk` token (lanchat's group uses one psk for both).
    ///   - remoteStaticKey: the responder's static public key, which the
    ///     initiator of X must know beforehand (and no other pattern takes).
    public init(pattern: NoisePattern, role: Role, prologue: [UInt8] = [], staticKey: X25519KeyPair,
                psk: [UInt8]? = nil, remoteStaticKey: [UInt8]? = nil) throws(CryptoError) {
        try self.init(pattern: pattern, role: role, prologue: prologue, staticKey: staticKey, psk: psk,
                      remoteStaticKey: remoteStaticKey, ephemeralKey: nil)
    }

    /// - Parameter ephemeralKey: for test vectors and fuzzing only; normally generated.
    init(pattern: NoisePattern, role: Role, prologue: [UInt8], staticKey: X25519KeyPair,
         psk: [UInt8]?, remoteStaticKey: [UInt8]? = nil, ephemeralKey: X25519KeyPair?) throws(CryptoError) {
        // At least one copy, so a psk given to XX is refused below, not dropped.
        let psks = psk.map { [[UInt8]](repeating: $0, count: max(pattern.pskCount, 1)) } ?? []
        try self.init(pattern: pattern, role: role, prologue: prologue, staticKey: staticKey, psks: psks,
                      remoteStaticKey: remoteStaticKey, ephemeralKey: ephemeralKey)
    }

    /// - Parameter psks: exactly one 32-byte psk per `psk` token of the
    ///   pattern, in order (published vectors may use different ones).
    init(pattern: NoisePattern, role: Role, prologue: [UInt8], staticKey: X25519KeyPair,
         psks: [[UInt8]], remoteStaticKey: [UInt8]? = nil, ephemeralKey: X25519KeyPair?) throws(CryptoError) {
        if pattern.usesPSK {
            guard psks.count == pattern.pskCount else {
                throw .missingKey("\(pattern.rawValue) needs \(pattern.pskCount) psk(s) of 32 bytes, got \(psks.count)")
            }
            for psk in psks { try LibCrypto.requireLength(psk, 32, "psk") }
        } else if !psks.isEmpty {
            throw .missingKey("\(pattern.rawValue) takes no psk")
        }
        self.pattern = pattern
        self.role = role
        self.localStatic = staticKey
        self.localEphemeral = ephemeralKey
        self.psks = psks
        symmetric = SymmetricState(protocolName: pattern.protocolName)
        symmetric.mixHash(prologue)
        if pattern.responderStaticIsPreMessage {
            switch role {
            case .initiator:
                guard let remoteStaticKey else {
                    throw .missingKey("\(pattern.rawValue) needs the responder's static key beforehand")
                }
                try LibCrypto.requireLength(remoteStaticKey, Self.dhLength, "remote static key")
                self.remoteStaticKey = remoteStaticKey
                symmetric.mixHash(remoteStaticKey)
            case .responder:
                guard remoteStaticKey == nil else { throw .missingKey("the responder of \(pattern.rawValue) takes no remote key") }
                symmetric.mixHash(staticKey.publicKey)
            }
        } else if remoteStaticKey != nil {
            throw .missingKey("\(pattern.rawValue) learns the remote static key in the handshake")
        }
    }

    /// True when it is this side's turn to call `writeMessage`.
    public var isMyTurnToWrite: Bool {
        !isFinished && (messageIndex % 2 == 0) == (role == .initiator)
    }

    public var isFinished: Bool { messageIndex == pattern.messages.count }

    /// The handshake hash h: after the handshake, a unique id of the session.
    public var handshakeHash: [UInt8] { symmetric.handshakeHash }

    public var localStaticPublicKey: [UInt8] { localStatic.publicKey }

    /// Writes the next message carrying `payload`.
    public mutating func writeMessage(_ payload: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard !failed else { throw .handshakeOutOfOrder("the handshake already failed") }
        guard isMyTurnToWrite else { throw .handshakeOutOfOrder("not this side's turn to write") }
        failed = true
        var message: [UInt8] = []
        for token in pattern.messages[messageIndex] {
            switch token {
            case .e:
                let ephemeral: X25519KeyPair
                if let fixed = localEphemeral { ephemeral = fixed } else { ephemeral = try X25519KeyPair.generate() }
                localEphemeral = ephemeral
                message += ephemeral.publicKey
                symmetric.mixHash(ephemeral.publicKey)
                if pattern.usesPSK { symmetric.mixKey(ephemeral.publicKey) }
            case .s:
                message += try symmetric.encryptAndHash(localStatic.publicKey)
            case .psk:
                mixNextPSK()
            default:
                symmetric.mixKey(try dh(token))
            }
        }
        message += try symmetric.encryptAndHash(payload)
        guard message.count <= Self.maxMessageLength else {
            throw .messageTooLarge(limit: Self.maxMessageLength, got: message.count)
        }
        messageIndex += 1
        failed = false
        return message
    }

    /// Reads the peer's next message and returns its payload.
    public mutating func readMessage(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !failed else { throw .handshakeOutOfOrder("the handshake already failed") }
        guard !isFinished, !isMyTurnToWrite else { throw .handshakeOutOfOrder("not this side's turn to read") }
        guard message.count <= Self.maxMessageLength else {
            throw .messageTooLarge(limit: Self.maxMessageLength, got: message.count)
        }
        failed = true
        var offset = 0
        func take(_ count: Int) throws(CryptoError) -> [UInt8] {
            guard message.count - offset >= count else { throw .messageTooShort(expected: offset + count, got: message.count) }
            defer { offset += count }
            return Array(message[offset..<(offset + count)])
        }
        for token in pattern.messages[messageIndex] {
            switch token {
            case .e:
                let ephemeral = try take(Self.dhLength)
                remoteEphemeral = ephemeral
                symmetric.mixHash(ephemeral)
                if pattern.usesPSK { symmetric.mixKey(ephemeral) }
            case .s:
                let length = Self.dhLength + (symmetric.hasKey ? ChaChaPoly.tagByteCount : 0)
                remoteStaticKey = try symmetric.decryptAndHash(try take(length))
            case .psk:
                mixNextPSK()
            default:
                symmetric.mixKey(try dh(token))
            }
        }
        let rest = Array(message[offset...])
        if symmetric.hasKey, rest.count < ChaChaPoly.tagByteCount {
            throw .messageTooShort(expected: offset + ChaChaPoly.tagByteCount, got: message.count)
        }
        let payload = try symmetric.decryptAndHash(rest)
        messageIndex += 1
        failed = false
        return payload
    }

    /// The transport ciphers, once the handshake is finished.
    public func split() throws(CryptoError) -> NoiseTransport {
        guard isFinished, !failed else { throw .handshakeOutOfOrder("split before the handshake finished") }
        let keys = symmetric.split()
        switch role {
        case .initiator:
            return NoiseTransport(sender: RecordCipher(key: keys.initiatorToResponder),
                                  receiver: RecordCipher(key: keys.responderToInitiator), handshakeHash: handshakeHash)
        case .responder:
            return NoiseTransport(sender: RecordCipher(key: keys.responderToInitiator),
                                  receiver: RecordCipher(key: keys.initiatorToResponder), handshakeHash: handshakeHash)
        }
    }

    /// The init checked there is one psk per token, so the index is in range.
    private mutating func mixNextPSK() {
        symmetric.mixKeyAndHash(psks[nextPSK])
        nextPSK += 1
    }

    private func dh(_ token: NoisePattern.Token) throws(CryptoError) -> [UInt8] {
        let initiator = role == .initiator
        // es: initiator's e with responder's s; se: initiator's s with responder's e.
        let useLocalEphemeral: Bool
        let useRemoteEphemeral: Bool
        switch token {
        case .ee: (useLocalEphemeral, useRemoteEphemeral) = (true, true)
        case .es: (useLocalEphemeral, useRemoteEphemeral) = (initiator, !initiator)
        case .se: (useLocalEphemeral, useRemoteEphemeral) = (!initiator, initiator)
        case .ss: (useLocalEphemeral, useRemoteEphemeral) = (false, false)
        default: preconditionFailure("not a DH token")
        }
        let local = useLocalEphemeral ? localEphemeral : localStatic
        let remote = useRemoteEphemeral ? remoteEphemeral : remoteStaticKey
        guard let local, let remote else { throw .handshakeOutOfOrder("DH before both keys are known") }
        return try local.sharedSecret(with: remote)
    }
}
