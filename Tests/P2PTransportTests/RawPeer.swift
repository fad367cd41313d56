import ChatCore
import Foundation
import Glibc
import P2PTransport

/// A hand-driven TCP client on 127.0.0.1, for speaking (and breaking) the
/// protocol without a `P2PService`. Non-blocking throughout: tests poll it
/// with `waitUntil`, so no test thread ever blocks the cooperative pool.
final class RawPeer {
    let fd: Int32
    let identity: NodeIdentity
    let instanceId = UUID().uuidString.lowercased()
    private var received: [UInt8] = []
    private(set) var closedByPeer = false

    init(connectingTo port: Int, as identity: NodeIdentity) throws {
        self.identity = identity
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw TransportError.systemCall(name: "connect", errno: errno, message: "")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { offset += count } else if errno == EAGAIN { usleep(1000) } else { return }
        }
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ payload: P2PPayload) { send(Array(P2PFrameCodec.encode(payload))) }

    /// A frame from this client; `sender` defaults to its own number.
    func frame(_ type: PayloadType, content: String = "", sender: NodeNumber? = nil) -> P2PPayload {
        P2PPayload(type: type, messageId: MessageID(millis: 1_732_147_200_000, random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
                   senderNumber: sender ?? identity.number, senderNickname: identity.nickname,
                   content: content, timestamp: 1_732_147_200_000)
    }

    func sendHello() {
        var hello = frame(.hello)
        hello.instanceId = instanceId
        hello.listenPort = 9
        hello.capabilities = []
        send(hello)
    }

    /// Reads what is there without blocking; notes an end of stream.
    func poll() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else {
                if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { closedByPeer = true }
                return
            }
        }
    }

    /// Frames received so far (complete lines only).
    var frames: [P2PPayload] {
        poll()
        return received.split(separator: 0x0A).compactMap { try? P2PFrameCodec.decodeLine($0) }
    }

    /// Whether the service closed the connection.
    var isClosed: Bool {
        poll()
        return closedByPeer
    }
}
