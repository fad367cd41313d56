import ChatCore
import Foundation
import Glibc

/// Times ping → pong round trips on a linked `RawPeer`, on a thread of its
/// own: a blocking poll(2) there measures to the microsecond, where a test
/// task polling every few milliseconds could not, and keeps the
/// cooperative pool free for the service under test.
enum RoundTrips {
    /// Sends `count` pings one after another, each once the previous pong
    /// arrived; returns every round trip (5 s for a lost pong).
    static func measure(_ peer: RawPeer, count: Int) async -> [Duration] {
        let fd = peer.fd
        let pings = (0..<count).map { _ in peer.frame(.ping) }
        let frames = pings.map { Array(P2PFrameCodec.encode($0)) }
        let ids = pings.map(\.messageId)
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                var times: [Duration] = []
                var pending: [UInt8] = []
                for (frame, id) in zip(frames, ids) {
                    let start = ContinuousClock.now
                    let deadline = start + .seconds(5)
                    writeAll(frame, to: fd, until: deadline)
                    while ContinuousClock.now < deadline, !receivedPong(for: id, on: fd, buffer: &pending, until: deadline) {}
                    times.append(ContinuousClock.now - start)
                }
                continuation.resume(returning: times)
            }
            thread.start()
        }
    }

    /// The middle value: robust against the scheduler's outliers.
    static func median(_ times: [Duration]) -> Duration {
        times.sorted()[times.count / 2]
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, until deadline: ContinuousClock.Instant) {
        var offset = 0
        while offset < bytes.count, ContinuousClock.now < deadline {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { offset += count } else if errno == EAGAIN { wait(for: Int16(POLLOUT), on: fd, until: deadline) } else { return }
        }
    }

    /// Waits for input, reads it, and says whether a pong for `id` is in it.
    private static func receivedPong(for id: MessageID, on fd: Int32, buffer: inout [UInt8],
                                     until deadline: ContinuousClock.Instant) -> Bool {
        wait(for: Int16(POLLIN), on: fd, until: deadline)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        var found = false
        while let newline = buffer.firstIndex(of: 0x0A) {
            if let frame = try? P2PFrameCodec.decodeLine(buffer[..<newline]), frame.type == .pong, frame.refId == id {
                found = true
            }
            buffer.removeSubrange(...newline)
        }
        return found
    }

    private static func wait(for events: Int16, on fd: Int32, until deadline: ContinuousClock.Instant) {
        let left = deadline - ContinuousClock.now
        let milliseconds = max(0, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
        var entry = pollfd(fd: fd, events: events, revents: 0)
        _ = poll(&entry, 1, milliseconds)
    }
}
