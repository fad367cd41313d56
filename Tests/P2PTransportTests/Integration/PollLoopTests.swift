#if canImport(Glibc)
import ChatCore
import Foundation
import Glibc
@testable import P2PTransport
import Synchronization
import Testing
import TestSupport

/// The epoll loop's contract, on pipes and a socket pair: one report per
/// arm, a report of one readiness keeps the other pending, stale reports
/// for a reused descriptor number are discarded, a hang-up delivers what
/// was asked, and `stop` ends the stream.
@Suite(.realTime) struct PollLoopTests {
    /// Reads the loop's report stream on its own task, so the test (the
    /// loop's owner) can wait for reports with a deadline and claim them.
    final class Collector: Sendable {
        private let received = Mutex<[PollLoop.Report]>([])
        /// Every batch as it came, by the descriptors it reported.
        private let batchList = Mutex<[[Int32]]>([])
        private let finished = Mutex(false)

        init(_ reports: EventChannel<[PollLoop.Report]>) {
            Task { [self] in
                for await batch in reports {
                    batchList.withLock { $0.append(batch.map(\.fd)) }
                    received.withLock { $0 += batch }
                }
                finished.withLock { $0 = true }
            }
        }

        /// Takes every report received so far.
        func take() -> [PollLoop.Report] { received.withLock { reports in defer { reports = [] }; return reports } }
        var isFinished: Bool { finished.withLock { $0 } }
        var batches: [[Int32]] { batchList.withLock { $0 } }

        /// Waits for a report on `fd` and returns everything taken until then.
        func waitFor(_ fd: Int32) async -> [PollLoop.Report] {
            var taken: [PollLoop.Report] = []
            _ = await waitUntil("a report on \(fd)") {
                taken += take()
                return taken.contains { $0.fd == fd }
            }
            return taken
        }
    }

    private static func pipe() throws -> (reader: Int32, writer: Int32) { try Socket.makeWakePipe() }

    private static func put(_ fd: Int32) {
        var byte: UInt8 = 7
        _ = Glibc.write(fd, &byte, 1)
    }

    /// Armed once, a readable pipe is reported once; still readable, with
    /// more bytes written, it is not reported again until re-armed. The
    /// sentinel, made ready after it, proves the loop went round meanwhile.
    @Test func aReportComesOncePerArm() async throws {
        let loop = try PollLoop()
        let collector = Collector(loop.reports)
        loop.start(name: "test-poll")
        let (a, aWriter) = try Self.pipe()
        let (sentinel, sentinelWriter) = try Self.pipe()
        defer { for fd in [a, aWriter, sentinel, sentinelWriter] { Socket.close(fd) } }
        loop.register(a, token: 10)
        loop.register(sentinel, token: 11)
        Self.put(aWriter)
        loop.arm(a, read: true)
        let first = await collector.waitFor(a)
        let claimed = try #require(first.first { $0.fd == a }.flatMap(loop.claim))
        #expect(claimed.token == 10 && claimed.readable && !claimed.writable)

        Self.put(aWriter)
        loop.arm(sentinel, read: true)
        Self.put(sentinelWriter)
        let second = await collector.waitFor(sentinel)
        #expect(second.contains { $0.fd == sentinel })
        #expect(!second.contains { $0.fd == a }, "reported again without a new arm")

        loop.arm(a, read: true)
        let third = await collector.waitFor(a)
        #expect(third.first { $0.fd == a }.flatMap(loop.claim)?.readable == true)
        loop.stop()
    }

    /// Read and write asked together: writable comes first (no data yet),
    /// which disarms the whole descriptor in the kernel; `claim` re-arms
    /// the read, so data arriving later is still reported without an arm.
    @Test func aReportOfOneReadinessKeepsTheOtherPending() async throws {
        let loop = try PollLoop()
        let collector = Collector(loop.reports)
        loop.start(name: "test-poll")
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { for fd in pair { Socket.close(fd) } }
        loop.register(pair[0], token: 20)
        loop.arm(pair[0], read: true, write: true)
        let first = try #require(await collector.waitFor(pair[0]).first { $0.fd == pair[0] })
        let writable = try #require(loop.claim(first))
        #expect(writable.writable && !writable.readable)

        Self.put(pair[1])
        let second = try #require(await collector.waitFor(pair[0]).first { $0.fd == pair[0] })
        let readable = try #require(loop.claim(second))
        #expect(readable.readable && !readable.writable)
        loop.stop()
    }

    /// A report made for one registration is not delivered to the next
    /// registration of the same descriptor number.
    @Test func aStaleReportForAReusedNumberIsDiscarded() async throws {
        let loop = try PollLoop()
        let collector = Collector(loop.reports)
        loop.start(name: "test-poll")
        let (a, aWriter) = try Self.pipe()
        defer { for fd in [a, aWriter] { Socket.close(fd) } }
        loop.register(a, token: 30)
        Self.put(aWriter)
        loop.arm(a, read: true)
        let old = try #require(await collector.waitFor(a).first { $0.fd == a })
        loop.remove(a)
        loop.register(a, token: 31)
        loop.arm(a, read: true)
        #expect(loop.claim(old) == nil)
        let fresh = try #require(await collector.waitFor(a).first { $0.fd == a })
        #expect(loop.claim(fresh)?.token == 31)
        loop.stop()
    }

    /// A hang-up delivers the readiness that was asked for (the read then
    /// says end of stream), and none that was not.
    @Test func aHangUpDeliversWhatWasAskedFor() async throws {
        let loop = try PollLoop()
        let collector = Collector(loop.reports)
        loop.start(name: "test-poll")
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { Socket.close(pair[0]) }
        loop.register(pair[0], token: 40)
        loop.arm(pair[0], read: true)
        Socket.close(pair[1])
        let report = try #require(await collector.waitFor(pair[0]).first { $0.fd == pair[0] })
        let readiness = try #require(loop.claim(report))
        #expect(readiness.readable && !readiness.writable)
        loop.stop()
    }

    /// The lazy registration's report alone is held (here for an hour): it
    /// comes in the same batch as the next other report, never before it.
    @Test func aLazyReportWaitsForTheNextOther() async throws {
        let loop = try PollLoop(lazyToken: 1)
        let collector = Collector(loop.reports)
        loop.holdLazyReports(for: .seconds(3600))
        loop.start(name: "test-poll")
        let (lazy, lazyWriter) = try Self.pipe()
        let (sentinel, sentinelWriter) = try Self.pipe()
        defer { for fd in [lazy, lazyWriter, sentinel, sentinelWriter] { Socket.close(fd) } }
        loop.register(lazy, token: 1)
        loop.register(sentinel, token: 11)
        Self.put(lazyWriter)
        loop.arm(lazy, read: true)
        loop.arm(sentinel, read: true)
        Self.put(sentinelWriter)
        _ = await collector.waitFor(sentinel)
        #expect(collector.batches == [[lazy, sentinel]])
        loop.stop()
    }

    /// Held with nothing else coming, the lazy report still comes once its
    /// window ends; with no window (the default) it is not held at all.
    @Test func aLazyReportAloneComesWhenItsWindowEnds() async throws {
        for window in [Duration.milliseconds(20), .zero] {
            let loop = try PollLoop(lazyToken: 1)
            let collector = Collector(loop.reports)
            loop.holdLazyReports(for: window)
            loop.start(name: "test-poll")
            let (lazy, lazyWriter) = try Self.pipe()
            defer { for fd in [lazy, lazyWriter] { Socket.close(fd) } }
            loop.register(lazy, token: 1)
            Self.put(lazyWriter)
            loop.arm(lazy, read: true)
            _ = await collector.waitFor(lazy)
            #expect(collector.batches == [[lazy]])
            loop.stop()
        }
    }

    @Test func stopFinishesTheStream() async throws {
        let loop = try PollLoop()
        let collector = Collector(loop.reports)
        loop.start(name: "test-poll")
        loop.stop()
        #expect(await waitUntil("the stream finished") { collector.isFinished })
        // Never started: stop finishes it at once.
        let idle = try PollLoop()
        let idleCollector = Collector(idle.reports)
        idle.stop()
        #expect(await waitUntil("the stream finished") { idleCollector.isFinished })
    }
}
#endif
