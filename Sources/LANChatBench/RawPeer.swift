import ChatCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A peer made of a plain blocking TCP socket on 127.0.0.1: it says hello
/// like a real node, then writes pre-encoded frames or drains what the node
/// sends. Used from its own threads, never from the concurrency pool.
final class RawPeer: @unchecked Sendable {
    // @unchecked: each peer is driven by one thread at a time (set up on
    // one, then handed to a single worker thread).
    let fd: Int32
    let identity: NodeIdentity

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Connects to a node's TCP port and completes the hello exchange.
    init(port: Int, nickname: String) throws {
        identity = NodeIdentity(number: .random(), nickname: nickname)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
        var hello = frame(.hello)
        hello.instanceId = UUID().uuidString.lowercased()
        hello.listenPort = 9
        hello.capabilities = ["ack", "history"]
        try write(P2PFrameCodec.encode(hello))
        // The node answers with its own hello: one line.
        var byte: UInt8 = 0
        while true {
            guard read(fd, &byte, 1) == 1 else { close(fd); throw Failure(description: "no hello from the node") }
            if byte == 0x0A { break }
        }
    }

    deinit { close(fd) }

    /// A frame from this peer (ids time-ordered).
    func frame(_ type: PayloadType, content: String = "", millis: Int64 = Timestamp.millis(from: Date())) -> P2PPayload {
        P2PPayload(type: type, messageId: MessageID(millis: millis, random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
                   senderNumber: identity.number, senderNickname: identity.nickname, content: content, timestamp: millis)
    }

    func write(_ data: some Collection<UInt8>) throws {
        let bytes = Array(data)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                throw Failure(description: "write: \(errno)")
            }
            offset += written
        }
    }

    /// Reads until `count` lines containing `marker` have arrived or the
    /// deadline passes; answers the node's keepalive pings so the link
    /// stays up. Returns how many marked lines arrived.
    func drain(lines count: Int, containing marker: String, deadline: Date) -> Int {
        let needle = Array(marker.utf8)
        let ping = Array(#""type":"ping""#.utf8)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var line: [UInt8] = []
        var seen = 0
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var lastPing = Date()
        while seen < count, Date() < deadline {
            // The node hears nothing else from us: without this it would
            // declare us dead after its dead-peer timeout while it sends.
            if Date().timeIntervalSince(lastPing) > 1 {
                try? write(P2PFrameCodec.encode(frame(.ping)))
                lastPing = Date()
            }
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got == 0 { break }
            if got < 0 { continue }  // timeout or EINTR: check the deadline
            buffer.withUnsafeBufferPointer { raw in
                var start = 0
                for index in 0..<got where raw[index] == 0x0A {
                    let piece = raw[start..<index]
                    let whole: [UInt8] = line.isEmpty ? Array(piece) : line + piece
                    line.removeAll(keepingCapacity: true)
                    if Self.contains(whole, needle) { seen += 1 } else if Self.contains(whole, ping) { try? write(P2PFrameCodec.encode(frame(.pong))) }
                    start = index + 1
                }
                if start < got { line.append(contentsOf: raw[start..<got]) }
            }
        }
        return seen
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.firstRange(of: needle) != nil
    }
}

/// Runs `body` on a new thread and awaits its result without holding a
/// thread of the (two-thread) concurrency pool.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
