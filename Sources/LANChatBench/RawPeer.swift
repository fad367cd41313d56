import ChatCore
import ChatCrypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A protocol v2 peer made of a plain blocking TCP socket on 127.0.0.1: it
/// dials, runs the Noise handshake as initiator with an identity key of its
/// own (its hello inside the identity payload), waits for the node's
/// acceptance record, then writes sealed records or drains what the node
/// sends. Used from its own threads, never from the concurrency pool.
/// `@unchecked Sendable`: its record ciphers are mutable, and each peer
/// is driven by one thread at a time (the one its row hands it to).
final class RawPeer: @unchecked Sendable {
    // @unchecked: each peer is driven by one thread at a time (set up on
    // one, then handed to a single worker thread); the ciphers are not shared.
    let fd: Int32
    let key: IdentityKey
    let identity: NodeIdentity
    /// Connect + handshake + acceptance, as this peer saw it.
    let handshakeTime: Duration
    private var transport: NoiseTransport
    private let authenticator: Ed25519MessageAuthenticator

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Connects to a node's TCP port, completes the handshake and waits
    /// until the node accepts the link. `key` nil: a fresh identity.
    init(port: Int, nickname: String, key: IdentityKey? = nil) throws {
        let key = try key ?? IdentityKey.generate()
        self.key = key
        identity = NodeIdentity(number: key.nodeNumber, nickname: nickname)
        authenticator = Ed25519MessageAuthenticator(key: key)
        var hello = P2PPayload(type: .hello, messageId: MessageID(millis: Timestamp.millis(from: Date()),
                                                                   random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
                               senderNumber: identity.number, senderNickname: nickname, content: "",
                               timestamp: Timestamp.millis(from: Date()))
        hello.instanceId = UUID().uuidString.lowercased()
        hello.listenPort = 9
        hello.capabilities = ["ack", "history"]
        let helloBytes = Array(P2PFrameCodec.encode(hello).dropLast())  // a record holds a frame without its newline

        let start = ContinuousClock.now
        fd = try Self.connect(port: port)
        do {
            var noise = try NoiseHandshake.lanchat(role: .initiator, staticKey: .generate(), groupSecret: nil)
            try Self.writeAll(fd, try RecordFrameDecoder.frame(try noise.writeMessage()))
            _ = try noise.readIdentityMessage(try Self.readFrame(fd))
            try Self.writeAll(fd, try RecordFrameDecoder.frame(try noise.writeMessage(identity: key, hello: helloBytes)))
            var transport = try noise.split()
            // The acceptor's first record (a ping) says the link is accepted.
            _ = try transport.open(try Self.readFrame(fd))
            self.transport = transport
        } catch {
            close(fd)
            throw Failure(description: "handshake with the node on \(port): \(error)")
        }
        handshakeTime = ContinuousClock.now - start
    }

    deinit { close(fd) }

    /// A frame from this peer (ids time-ordered); public messages signed
    /// as the node signs them.
    func frame(_ type: PayloadType, content: String = "", millis: Int64 = Timestamp.millis(from: Date()),
               messageId: MessageID? = nil) -> P2PPayload {
        Self.frame(type, from: identity, signedBy: authenticator, content: content, millis: millis, messageId: messageId)
    }

    /// A frame from the peer `identity` whose key `authenticator` holds:
    /// made before connecting, since signing a big flood takes seconds and
    /// a linked peer that says nothing that long is cut as dead.
    static func frame(_ type: PayloadType, from identity: NodeIdentity, signedBy authenticator: Ed25519MessageAuthenticator,
                      content: String = "", millis: Int64 = Timestamp.millis(from: Date()), messageId: MessageID? = nil) -> P2PPayload {
        let id = messageId ?? MessageID(millis: millis, random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max)))
        var payload = P2PPayload(type: type, messageId: id,
                                 senderNumber: identity.number, senderNickname: identity.nickname, content: content, timestamp: millis)
        if type == .publicMessage { authenticator.sign(&payload) }
        return payload
    }

    /// The frame's JSON as a record plaintext (no line end).
    static func plaintext(_ payload: P2PPayload) -> [UInt8] {
        Array(P2PFrameCodec.encode(payload).dropLast())
    }

    /// The next record of this link on the wire (length prefix included).
    /// Records must be written in the order they were sealed.
    func seal(_ plaintext: [UInt8]) throws -> [UInt8] {
        try RecordFrameDecoder.frame(try transport.seal(plaintext))
    }

    func seal(_ payload: P2PPayload) throws -> [UInt8] { try seal(Self.plaintext(payload)) }

    func write(_ bytes: [UInt8]) throws { try Self.writeAll(fd, bytes) }

    /// Reads until `count` records containing `marker` have arrived or the
    /// deadline passes; answers the node's keepalive pings so the link
    /// stays up. Returns how many marked records arrived.
    /// `cpu`: seconds of CPU this thread used draining.
    func drain(records count: Int, containing marker: String, deadline: Date) -> (seen: Int, cpu: Double) {
        let before = ScreenRow.threadCPUMicros()
        let seen = drainRecords(count, containing: marker, deadline: deadline)
        return (seen, (ScreenRow.threadCPUMicros() - before) / 1e6)
    }

    private func drainRecords(_ count: Int, containing marker: String, deadline: Date) -> Int {
        let needle = Array(marker.utf8)
        let ping = Array(#""type":"ping""#.utf8)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var decoder = RecordFrameDecoder()
        var seen = 0
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var lastPing = Date()
        while seen < count, Date() < deadline {
            // The node hears nothing else from us: without this it would
            // declare us dead after its dead-peer timeout while it sends.
            if Date().timeIntervalSince(lastPing) > 1 {
                if let record = try? seal(frame(.ping)) { try? write(record) }
                lastPing = Date()
            }
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got == 0 { break }
            if got < 0 { continue }  // timeout or EINTR: check the deadline
            do {
                try decoder.append(buffer[0..<got])
                while let record = try decoder.decode() {
                    let plaintext = try transport.open(record)
                    if Self.contains(plaintext, needle) {
                        seen += 1
                    } else if Self.contains(plaintext, ping), let pong = try? seal(frame(.pong)) {
                        try? write(pong)
                    }
                }
            } catch {
                break  // a broken stream: what arrived so far is the answer
            }
        }
        return seen
    }

    /// A plain byte search over buffer pointers: the generic
    /// `firstRange(of:)` cost the draining peers more CPU than the node
    /// they measure (they share its 2 cores).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                guard let first = pin.first, pin.count <= hay.count else { return pin.isEmpty }
                var index = 0
                let last = hay.count - pin.count
                while index <= last {
                    if hay[index] == first, memcmp(hay.baseAddress! + index, pin.baseAddress!, pin.count) == 0 { return true }
                    index += 1
                }
                return false
            }
        }
    }

    // MARK: Blocking socket helpers

    private static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw Failure(description: "connect to \(port): \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a link the node cut is EPIPE here, not SIGPIPE for the whole benchmark.
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                throw Failure(description: "write: \(errno)")
            }
            offset += written
        }
    }

    /// Exactly one length-prefixed frame, nothing past it.
    private static func readFrame(_ fd: Int32) throws -> [UInt8] {
        let header = try readExactly(fd, RecordFrameDecoder.headerLength)
        return try readExactly(fd, Int(header[0]) << 8 | Int(header[1]))
    }

    private static func readExactly(_ fd: Int32, _ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes[offset...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw Failure(description: got == 0 ? "the node closed the connection" : "read: \(errno)") }
            offset += got
        }
        return bytes
    }
}

/// Runs `body` on a new thread and awaits its result without holding a
/// thread of the (two-thread) concurrency pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
