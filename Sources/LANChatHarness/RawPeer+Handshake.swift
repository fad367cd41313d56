import ChatCore
import ChatWire
import ChatCrypto

/// The dialler's side of the v2 handshake, one step at a time, so a test
/// can stop, lie or replay at any point (docs/PROTOCOL.md 3.2):
///
///     message1()  -> [psk,] e                       (sent as is)
///     awaitMessage2()  <- e, ee, s, es + the acceptor's identity and hello
///     message3(hello:) -> s, se [, psk] + this peer's identity and hello
///     awaitAcceptance()  <- the acceptor's first record (a ping)
///
/// `handshake()` does all four. Each message is recorded as sent or
/// received (`sentHandshakeMessages`, `receivedHandshakeMessages`).
extension RawPeer {
    /// Message 1, length prefix included, not sent yet.
    public func message1() throws -> [UInt8] {
        do {
            let message = try noise.writeMessage()
            sentHandshakeMessages.append(message)
            return Self.framed(message)
        } catch {
            throw Failure("message 1: \(error)")
        }
    }

    public func sendMessage1() throws { sendRaw(try message1()) }

    /// Waits for message 2 and verifies the acceptor's identity payload in it.
    @discardableResult
    public func awaitMessage2(within timeout: Duration = RawPeer.standardWait) async throws -> HandshakeIdentity.Verified {
        try readMessage2(try await awaitHandshakeMessage(0, "message 2", within: timeout))
    }

    @discardableResult
    func readMessage2(_ message: [UInt8]) throws -> HandshakeIdentity.Verified {
        do {
            let verified = try noise.readIdentityMessage(message)
            remoteIdentity = verified
            return verified
        } catch {
            throw Failure("message 2 does not verify: \(error)")
        }
    }

    /// The `index`th handshake message received, once it is in.
    func awaitHandshakeMessage(_ index: Int, _ name: String, within timeout: Duration) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let message = try handshakeMessage(index, name) { return message }
            guard ContinuousClock.now < deadline else { throw Failure("no \(name) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The `index`th handshake message if it is in, nil if not yet; throws
    /// if it never will be.
    func handshakeMessage(_ index: Int, _ name: String) throws -> [UInt8]? {
        poll()
        if handshakeInbox.count > index { return handshakeInbox[index] }
        if isClosed { throw Failure("closed before \(name)") }
        if let streamFailure { throw Failure("no \(name): \(streamFailure)") }
        return nil
    }

    /// The other side's hello, from its verified identity payload.
    public var remoteHello: P2PPayload? {
        remoteIdentity.flatMap { try? P2PFrameCodec.decode($0.hello) }
    }

    /// Message 3 with this peer's identity payload carrying `hello` (any
    /// bytes: a hello, a lie, garbage), length prefix included, not sent
    /// yet. The record keys are ready from here on.
    public func message3(helloBytes: [UInt8]) throws -> [UInt8] {
        do {
            let message = try noise.writeMessage(identity: key, hello: helloBytes)
            sentHandshakeMessages.append(message)
            transport = try noise.split()
            return Self.framed(message)
        } catch {
            throw Failure("message 3: \(error)")
        }
    }

    public func message3(hello: P2PPayload? = nil) throws -> [UInt8] {
        try message3(helloBytes: Self.encoded(hello ?? self.hello()))
    }

    public func sendMessage3(hello: P2PPayload? = nil) throws { sendRaw(try message3(hello: hello)) }

    /// Waits for the acceptor's first record, which says it accepted the
    /// link; returns that frame (a ping).
    @discardableResult
    public func awaitAcceptance(within timeout: Duration = RawPeer.standardWait) async throws -> P2PPayload {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let first = try acceptance() { return first }
            guard ContinuousClock.now < deadline else { throw Failure("no acceptance within \(timeout)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The acceptor's first record if it is in, nil if not yet; throws if
    /// it never will be.
    func acceptance() throws -> P2PPayload? {
        if let first = frames.first { return first }
        if let streamFailure { throw Failure("no acceptance: \(streamFailure)") }
        if isClosed { throw Failure("closed without accepting the link") }
        return nil
    }

    /// The whole handshake with `hello` (this peer's own by default), up to
    /// the acceptor's first record. Throws, saying where, if the acceptor
    /// closes or stalls.
    public func handshake(hello: P2PPayload? = nil, within timeout: Duration = RawPeer.standardWait) async throws {
        try sendMessage1()
        try await awaitMessage2(within: timeout)
        try sendMessage3(hello: hello)
        try await awaitAcceptance(within: timeout)
    }
}
