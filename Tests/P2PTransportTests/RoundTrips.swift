import ChatCore
import Foundation
import LANChatHarness
import TestSupport

/// Times ping → pong round trips on a linked `RawPeer`, on a thread of its
/// own: a blocking poll(2) there measures to the microsecond, where a test
/// task polling every few milliseconds could not, and keeps the
/// cooperative pool free for the service under test. The test awaits the
/// result, so the thread is the peer's only user meanwhile.
enum RoundTrips {
    /// Sends `count` pings one after another, each once the previous pong
    /// arrived; returns every round trip (5 s for a lost pong).
    static func measure(_ peer: RawPeer, count: Int) async -> [Duration] {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var times: [Duration] = []
                for _ in 0..<count {
                    let ping = peer.frame(.ping)
                    let start = ContinuousClock.now
                    let deadline = start + .seconds(5)
                    peer.writeAll(peer.seal(ping), until: deadline)
                    while ContinuousClock.now < deadline, !peer.isClosed,
                          !peer.frames.contains(where: { $0.type == .pong && $0.refId == ping.messageId }) {
                        peer.waitReadable(until: deadline)
                    }
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
}
