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

    /// Writes `bytes` from a thread of its own, `pause` after each piece,
    /// until done or the reader closes its end; then closes `fd` (the
    /// writer owns it: no write can reach a reused descriptor number).
    private static func write(_ bytes: [UInt8], to fd: Int32, pieces: Int, pause: useconds_t) {
        let cut = stride(from: 0, to: bytes.count, by: pieces).map { Array(bytes[$0..<min($0 + pieces, bytes.count)]) }
        write(cut, to: fd, pause: pause)
    }

    private static func write(_ pieces: [[UInt8]], to fd: Int32, pause: useconds_t) {
        Thread {
            defer { close(fd) }
            for piece in pieces {
                let sent = piece.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == piece.count else { return }
                usleep(pause)
            }
        }.start()
    }

    @Test func aFrameTrickledSlowerThanTheTimeoutEndsTheLink() throws {
        let (connection, peer) = try Self.pair(timeoutSeconds: 1)
        defer { connection.close() }  // ends the trickle
        // A 1,000-byte frame, a byte every 100 ms: 100 s in all, each byte
        // well within the 1 s timeout of a single read.
        Self.write([0x03, 0xE8] + [UInt8](repeating: 7, count: 1_000), to: peer, pieces: 1, pause: 100_000)
        let started = ContinuousClock.now
        let outcome: Result<[UInt8], FileLinkConnection.Failure>
        do throws(FileLinkConnection.Failure) { outcome = .success(try connection.readFrame()) } catch { outcome = .failure(error) }
        let took = ContinuousClock.now - started
        guard case .failure(.timedOut) = outcome else {
            Issue.record("read \(outcome) in \(took); expected a timeout")
            return
        }
        // About 1 s (one deadline for the whole frame); a per-byte timeout
        // would have read on for the trickle's 100 s.
        #expect(took < .seconds(30))
    }

    /// The length's two bytes 1.2 s apart, the body 1.2 s later: each
    /// part within 2 s, the frame not. One deadline for length and body
    /// ends it; a deadline each (before) read it whole after 2.4 s.
    @Test func theLengthAndTheBodyShareOneDeadline() throws {
        let (connection, peer) = try Self.pair(timeoutSeconds: 2)
        defer { connection.close() }
        Self.write([[0], [16], [UInt8](repeating: 5, count: 16)], to: peer, pause: 1_200_000)
        let outcome: Result<[UInt8], FileLinkConnection.Failure>
        do throws(FileLinkConnection.Failure) { outcome = .success(try connection.readFrame()) } catch { outcome = .failure(error) }
        guard case .failure(.timedOut) = outcome else {
            Issue.record("read \(outcome); expected a timeout 2 s after the frame's first byte")
            return
        }
    }

    @Test func aFrameThatArrivesInPiecesIsRead() throws {
        let (connection, peer) = try Self.pair(timeoutSeconds: 30)
        defer { connection.close() }
        Self.write([0, 16] + [UInt8](repeating: 9, count: 16), to: peer, pieces: 6, pause: 50_000)
        #expect(try connection.readFrame() == [UInt8](repeating: 9, count: 16))
    }
}
