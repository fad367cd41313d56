import ChatCore
import Foundation
import Glibc
@testable import P2PTransport
import Testing
import TestSupport

/// The transfer link's timeout bounds a whole frame: a peer (or a lossy
/// link in TCP's backoff) that trickles a byte now and then does not keep
/// the link alive for ever.
@Suite(.realTime) struct FileLinkDeadlineTests {
    /// A connected pair of stream sockets, the first wrapped as a link.
    private static func pair(timeoutSeconds: Int) throws -> (FileLinkConnection, Int32) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (try FileLinkConnection(accepted: fds[0], timeoutSeconds: timeoutSeconds), fds[1])
    }

    @Test func aFrameTrickledSlowerThanTheTimeoutEndsTheLink() async throws {
        let (connection, peer) = try Self.pair(timeoutSeconds: 1)
        defer { close(peer) }
        // A 16-byte frame, one byte every 150 ms: 2.7 s in all, each byte
        // well within the 1 s timeout of a single read.
        let frame: [UInt8] = [0, 16] + [UInt8](repeating: 7, count: 16)
        let writer = Thread {
            for byte in frame {
                var one = byte
                guard send(peer, &one, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
                usleep(150_000)
            }
        }
        writer.start()
        let started = ContinuousClock.now
        let outcome: Result<[UInt8], FileLinkConnection.Failure>
        do throws(FileLinkConnection.Failure) { outcome = .success(try connection.readFrame()) } catch { outcome = .failure(error) }
        let took = ContinuousClock.now - started
        guard case .failure(.timedOut) = outcome else {
            Issue.record("read \(outcome) in \(took); expected a timeout")
            return
        }
        // One frame's deadline per fill (length, then body): never the trickle's 2.7 s.
        #expect(took < .milliseconds(2_500))
    }

    @Test func aFrameThatArrivesInPiecesWithinTheTimeoutIsRead() throws {
        let (connection, peer) = try Self.pair(timeoutSeconds: 2)
        defer { close(peer) }
        let frame: [UInt8] = [0, 16] + [UInt8](repeating: 9, count: 16)
        let writer = Thread {
            for start in stride(from: 0, to: frame.count, by: 6) {
                let piece = Array(frame[start..<min(start + 6, frame.count)])
                _ = piece.withUnsafeBytes { send(peer, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                usleep(100_000)
            }
        }
        writer.start()
        #expect(try connection.readFrame() == [UInt8](repeating: 9, count: 16))
    }
}
