import ChatCore
import ChatWire
import ChatCrypto
import Foundation

/// A hand-driven protocol v2 peer on 127.0.0.1, for speaking (and
/// breaking) the link protocol without a `P2PService` or a `lanchat`
/// process: the Noise handshake step by step (docs/PROTOCOL.md 3.2),
/// records, and raw bytes anywhere in between. The tests use it as a
/// hostile peer, `lanchat-bench` to flood a node or drain what it sends.
///
///     let raw = try RawPeer(connectingTo: port, key: key, nickname: "mallory")
///     try await raw.handshake()          // messages 1-3, then the acceptor's ping
///     raw.send(raw.frame(.publicMessage, content: "hi"))
///     #expect(await waitUntil { raw.frames.contains { $0.type == .pong } })
///
/// Non-blocking throughout: nothing here waits on the socket. Reads happen
/// when a test asks (`poll`, `frames`, `isClosed`), so a test polls with
/// `waitUntil`; the async steps of the handshake poll the same way with a
/// deadline. Only `writeAll(_:until:)`, `waitReadable(until:)`,
/// `link(to:...)` and `drain(records:...)` block, for tests and bench rows
/// that time round trips, flood or drain from a thread of their own.
///
/// It dials (`init(connectingTo:...)`, the Noise initiator) or, for a node
/// that dials it, accepts (`accepted(on:...)`, the responder; see
/// `RawPeer+Acceptor`). A hostile peer holds a valid key of its own: every
/// refusal a test sees is the transport's rule at work, not a broken
/// signature.
public final class RawPeer: @unchecked Sendable {
    // @unchecked: a test drives a RawPeer from one task, or hands it to one
    // thread while it awaits that thread's result; never two at once.

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// How long a handshake step waits by default: generous, as a test's
    /// standard deadline is (a passing wait returns as soon as it can).
    public static let standardWait: Duration = .seconds(20)

    public let fd: Int32
    /// This peer's identity key; its number is the one the key derives.
    public let key: IdentityKey
    public let nickname: String
    public let instanceId = UUID().uuidString.lowercased()
    /// Signs its public messages (made once: a flooding peer signs thousands).
    private let authenticator: Ed25519MessageAuthenticator
    /// The port its hello says it listens on (nothing listens there).
    public var listenPort = 9

    var noise: NoiseHandshake
    /// The record ciphers, once message 3 is written (dialler) or read (acceptor).
    public internal(set) var transport: NoiseTransport?
    /// Handshake message bodies (no length prefix) as sent: messages 1
    /// and 3 by a dialler, message 2 by an acceptor.
    public internal(set) var sentHandshakeMessages: [[UInt8]] = []
    /// Handshake message bodies as received (see `receivedHandshakeMessages`).
    var handshakeInbox: [[UInt8]] = []
    /// The other side's verified identity payload, once its message 2 (or
    /// 3, for an acceptor) is read.
    public internal(set) var remoteIdentity: HandshakeIdentity.Verified?
    /// Records as sent, length prefix included (to replay one).
    public private(set) var sentRecords: [[UInt8]] = []

    private var received: [UInt8] = []
    var splitter = RecordFrameDecoder()
    private var opened: [P2PPayload] = []
    /// Why the incoming stream stopped making sense (a bad length, a record
    /// that did not open); nothing more is decoded after it.
    public internal(set) var streamFailure: String?
    var outbox: [UInt8] = []
    var closedByPeer = false
    private var closedHere = false

    /// Connects to 127.0.0.1:`port` as the dialler (Noise initiator) with
    /// `key`; with `groupSecret` it speaks XXpsk0+psk3 (its group's psk),
    /// else XX.
    public convenience init(connectingTo port: Int, key: IdentityKey, nickname: String, groupSecret: GroupSecret? = nil) throws {
        try self.init(fd: try Self.connectNonBlocking(port: port), role: .initiator, key: key, nickname: nickname,
                      groupSecret: groupSecret)
    }

    /// Takes over `fd`, a connected non-blocking socket.
    init(fd: Int32, role: NoiseHandshake.Role, key: IdentityKey, nickname: String, groupSecret: GroupSecret?) throws {
        self.fd = fd
        self.key = key
        self.nickname = nickname
        authenticator = Ed25519MessageAuthenticator(key: key)
        do {
            noise = try .lanchat(role: role, staticKey: try X25519KeyPair.generate(), groupSecret: groupSecret)
        } catch {
            Self.close(fd)
            throw Failure("no Noise handshake: \(error)")
        }
    }

    deinit { if !closedHere { Self.close(fd) } }

    /// Closes the socket now, as a peer that quits does (what the service
    /// writes afterwards is answered with a reset).
    public func close() {
        guard !closedHere else { return }
        closedHere = true
        Self.close(fd)
    }

    public var number: NodeNumber { key.nodeNumber }
    public var identity: NodeIdentity { NodeIdentity(number: number, nickname: nickname) }

    // MARK: Frames

    /// The time a frame says by default: a fixed instant, so frames are
    /// alike from run to run.
    public static let fixedMillis: Int64 = 1_732_147_200_000

    /// A frame from this peer, unsigned; `sender` defaults to its own
    /// number, `messageId` to a random id at `millis`.
    public func frame(_ type: PayloadType, content: String = "", sender: NodeNumber? = nil,
                      millis: Int64 = RawPeer.fixedMillis, messageId: MessageID? = nil) -> P2PPayload {
        let id = messageId ?? MessageID(millis: millis, random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max)))
        return P2PPayload(type: type, messageId: id, senderNumber: sender ?? number, senderNickname: nickname,
                          content: content, timestamp: millis)
    }

    /// A public message from this peer, signed with its key as a node signs.
    public func signedMessage(_ content: String, millis: Int64, messageId: MessageID? = nil) -> P2PPayload {
        Self.signedMessage(content, from: identity, signedBy: authenticator,
                           millis: millis, messageId: messageId)
    }

    /// A public message from `identity`, signed by `authenticator` (its
    /// key): made before connecting, since signing a big flood takes
    /// seconds and a linked peer that says nothing that long is cut as dead.
    public static func signedMessage(_ content: String, from identity: NodeIdentity, signedBy authenticator: Ed25519MessageAuthenticator,
                                     millis: Int64, messageId: MessageID? = nil) -> P2PPayload {
        let id = messageId ?? MessageID(millis: millis, random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max)))
        var payload = P2PPayload(type: .publicMessage, messageId: id, senderNumber: identity.number,
                                 senderNickname: identity.nickname, content: content, timestamp: millis)
        authenticator.sign(&payload)
        return payload
    }

    /// The hello this peer sends in message 3; change it to lie.
    public func hello() -> P2PPayload {
        var hello = frame(.hello)
        hello.instanceId = instanceId
        hello.listenPort = listenPort
        hello.capabilities = []
        return hello
    }

    /// `payload` as a record holds it: its JSON, without a line end.
    public static func encoded(_ payload: P2PPayload) -> [UInt8] {
        Array(P2PFrameCodec.encode(payload).dropLast())
    }

    // MARK: Sending

    /// Queues `bytes` exactly as given and writes what the socket takes now
    /// (the rest on the next `poll`).
    public func sendRaw(_ bytes: [UInt8]) {
        outbox.append(contentsOf: bytes)
        flush()
    }

    public func sendRaw(_ text: String) { sendRaw(Array(text.utf8)) }

    /// `body` behind a 2-byte big-endian length, as every handshake message
    /// and record travels; for garbage, truncated or replayed messages.
    public func sendFramed(_ body: [UInt8]) { sendRaw(Self.framed(body)) }

    public static func framed(_ body: [UInt8]) -> [UInt8] {
        precondition(body.count <= 0xFFFF, "a 2-byte length cannot say \(body.count)")
        return [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// Seals `plaintext` as the next record, length prefix included,
    /// without sending it: a test may tamper with it, hold it back or
    /// send it twice. Each call uses up one nonce.
    public func seal(plaintext: [UInt8]) -> [UInt8] {
        guard transport != nil else { preconditionFailure("no record keys before message 3") }
        do {
            return Self.framed(try transport!.seal(plaintext))
        } catch {
            preconditionFailure("could not seal \(plaintext.count) bytes: \(error)")
        }
    }

    public func seal(_ payload: P2PPayload) -> [UInt8] { seal(plaintext: Self.encoded(payload)) }

    /// Sends `plaintext` (any bytes, a frame or not) as the next record.
    public func sendRecord(_ plaintext: [UInt8]) {
        let record = seal(plaintext: plaintext)
        sentRecords.append(record)
        sendRaw(record)
    }

    public func sendRecord(_ text: String) { sendRecord(Array(text.utf8)) }

    /// Sends `payload` as the next record.
    public func send(_ payload: P2PPayload) { sendRecord(Self.encoded(payload)) }

    /// Bytes queued that the socket has not taken yet.
    public var unsentByteCount: Int { outbox.count }

    // MARK: Receiving

    /// Writes what is queued and reads what is there, without blocking;
    /// notes an end of stream.
    public func poll() {
        flush()
        // Not zero-filled: a timed handshake polls often, and filling 64 KiB
        // each time was most of its figure in a debug build.
        withUnsafeTemporaryAllocation(byteCount: 65_536, alignment: 1) { buffer in
            while !closedByPeer {
                switch Self.receive(fd, into: buffer) {
                case .bytes(let count):
                    let chunk = Array(buffer[0..<count])
                    received.append(contentsOf: chunk)
                    take(chunk[...])
                case .wouldBlock:
                    return
                case .closed:
                    closedByPeer = true
                }
            }
        }
    }

    /// Splits what arrived into handshake messages (before the record keys)
    /// and records, and opens the records.
    private func take(_ bytes: ArraySlice<UInt8>) {
        guard streamFailure == nil else { return }
        do {
            try splitter.append(bytes)
            while let body = try splitter.decode() {
                if transport == nil { handshakeInbox.append(body) } else { openRecord(body) }
            }
        } catch {
            streamFailure = "\(error)"
        }
    }

    /// Opens one record; a record that does not open ends the stream.
    func openRecord(_ record: [UInt8]) {
        guard streamFailure == nil else { return }
        do {
            let plaintext = try transport!.open(record)
            if let payload = try? P2PFrameCodec.decode(plaintext) { opened.append(payload) }
        } catch {
            streamFailure = "a record did not open: \(error)"
        }
    }

    /// Handshake message bodies received so far: message 2 for a dialler,
    /// messages 1 and 3 for an acceptor.
    public var receivedHandshakeMessages: [[UInt8]] {
        poll()
        return handshakeInbox
    }

    /// Frames from the records received so far, in order.
    public var frames: [P2PPayload] {
        poll()
        return opened
    }

    /// Every byte received so far, as it came (a v1 refusal is a JSON line).
    public var receivedBytes: [UInt8] {
        poll()
        return received
    }

    /// Whether the service closed the connection.
    public var isClosed: Bool {
        poll()
        return closedByPeer
    }

    func flush() {
        while !outbox.isEmpty, !closedByPeer {
            switch Self.send(fd, outbox[...]) {
            case .bytes(let count): outbox.removeFirst(count)
            case .wouldBlock: return
            case .closed:
                closedByPeer = true
                outbox.removeAll()
            }
        }
    }
}
