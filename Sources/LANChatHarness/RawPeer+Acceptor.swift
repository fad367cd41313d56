import ChatCore
import ChatCrypto

/// The acceptor's side of the v2 handshake, for a node under test that
/// dials a hostile peer (docs/PROTOCOL.md 3.2):
///
///     awaitMessage1()        <- [psk,] e
///     message2(hello:)       -> e, ee, s, es + this peer's identity and hello
///     awaitMessage3()        <- s, se [, psk] + the dialler's identity and hello
///     send(frame(.ping))     -> the first record: the link is accepted
///
/// `accept()` does all four; a test stops or lies wherever it likes instead.
extension RawPeer {
    /// The next connection to `listener`, answered as the Noise responder.
    public static func accepted(on listener: RawListener, key: IdentityKey, nickname: String,
                                groupSecret: GroupSecret? = nil, within timeout: Duration = RawPeer.standardWait) async throws -> RawPeer {
        try RawPeer(fd: try await listener.accept(within: timeout), role: .responder, key: key, nickname: nickname,
                    groupSecret: groupSecret)
    }

    /// Waits for message 1 and reads it (an ephemeral key; with a group
    /// secret, an empty payload under the psk).
    public func awaitMessage1(within timeout: Duration = RawPeer.standardWait) async throws {
        let message = try await awaitHandshakeMessage(0, "message 1", within: timeout)
        do {
            let payload = try noise.readMessage(message)
            guard payload.isEmpty else { throw Failure("message 1 carries \(payload.count) payload bytes") }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure("message 1 does not read: \(error)")
        }
    }

    /// Message 2 with this peer's identity payload carrying `helloBytes`,
    /// length prefix included, not sent yet.
    public func message2(helloBytes: [UInt8]) throws -> [UInt8] {
        do {
            let message = try noise.writeMessage(identity: key, hello: helloBytes)
            sentHandshakeMessages.append(message)
            return Self.framed(message)
        } catch {
            throw Failure("message 2: \(error)")
        }
    }

    public func message2(hello: P2PPayload? = nil) throws -> [UInt8] {
        try message2(helloBytes: Self.encoded(hello ?? self.hello()))
    }

    public func sendMessage2(hello: P2PPayload? = nil) throws { sendRaw(try message2(hello: hello)) }

    /// Waits for message 3, verifies the dialler's identity payload in it
    /// and makes the record keys.
    @discardableResult
    public func awaitMessage3(within timeout: Duration = RawPeer.standardWait) async throws -> HandshakeIdentity.Verified {
        let message = try await awaitHandshakeMessage(1, "message 3", within: timeout)
        do {
            let verified = try noise.readIdentityMessage(message)
            remoteIdentity = verified
            transport = try noise.split()
            // Records that came right behind message 3 (a dialler that did
            // not wait for acceptance) were held as handshake messages.
            for early in handshakeInbox.dropFirst(2) { openRecord(early) }
            return verified
        } catch {
            throw Failure("message 3 does not verify: \(error)")
        }
    }

    /// The whole acceptor side with `hello` (this peer's own by default),
    /// then its first record, a ping, which accepts the link.
    public func accept(hello: P2PPayload? = nil, within timeout: Duration = RawPeer.standardWait) async throws {
        try await awaitMessage1(within: timeout)
        try sendMessage2(hello: hello)
        try await awaitMessage3(within: timeout)
        send(frame(.ping))
    }
}
