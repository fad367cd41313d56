#if canImport(Glibc)
import CEpoll
import ChatCore
import Foundation
import Glibc
import Synchronization

/// A readiness notifier over epoll(7): one thread blocked in `epoll_wait`
/// reports which descriptors are ready, a batch per wake-up, in order.
///
/// Interest is one-shot: once reported, a descriptor is not watched again
/// until `arm` is called. The service does every read, write and accept
/// itself after a report, then re-arms, so the loop never touches sockets'
/// data, there is no buffer between the kernel and the service, and a slow
/// service simply reads later (natural backpressure).
///
/// Owned by one actor (`P2PService`), which alone calls `register`, `arm`,
/// `claim`, `remove` and `stop`: the interest table needs no lock, and an
/// arm is one `epoll_ctl` from the caller, with no wake-up of the thread
/// and no rescan of the set (what poll(2) cost: a pipe write, a thread
/// switch and a copy and scan of every descriptor per arm). The thread
/// shares only the epoll descriptor, the stop pipe and the report stream.
///
/// Reports carry the registration's token, not just the descriptor, because
/// a descriptor number is reused after close; a stale report for a reused
/// number is discarded by `claim`.
final class PollLoop {
    /// What epoll said about one registration; `claim` turns it into readiness.
    struct Report: Sendable {
        let fd: Int32
        /// The token's low 32 bits (the rest of `epoll_event.data` is the fd).
        let token: UInt32
        let flags: UInt32
    }

    /// What a report means for its registration: the full token, and
    /// which of the asked-for readiness it delivers.
    struct Readiness: Sendable {
        let token: Int
        let readable: Bool
        let writable: Bool
    }

    /// What the owner asked for on one descriptor (epoll flags).
    private struct Registration {
        var token: Int
        var interest: UInt32
    }

    /// Batches in the order of the wake-ups; finishes after `stop()`.
    let reports = EventChannel<[Report]>(capacity: .max)
    /// How long a batch of only `lazyToken`'s reports may wait for company
    /// (`holdLazyReports`); shared with the thread.
    private let hold = LazyHold()
    /// The registration whose reports may wait (the discovery socket's):
    /// a beacon heard half a second late costs nothing, while each hand-off
    /// to the service is a thread switch, the largest share of an idle
    /// node's CPU (docs/BENCHMARKS.md, "What an idle node pays for").
    private let lazyToken: Int?
    private let epoll: Int32
    private let stopReader: Int32
    private let stopWriter: Int32
    private var registrations: [Int32: Registration] = [:]
    private var stopped = false
    private var started = false

    static let readFlags = EPOLLIN.rawValue
    static let writeFlags = EPOLLOUT.rawValue
    static let failureFlags = EPOLLHUP.rawValue | EPOLLERR.rawValue
    /// `epoll_event.data` of the stop pipe: no registration has fd -1.
    private static let stopData = UInt64(UInt32.max)

    init(lazyToken: Int? = nil) throws(TransportError) {
        self.lazyToken = lazyToken
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw Socket.failure("epoll_create1", Glibc.errno) }
        let pipe: (reader: Int32, writer: Int32)
        do {
            pipe = try Socket.makeWakePipe()
        } catch {
            Socket.close(epoll)
            throw error
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: Self.stopData))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, pipe.reader, &event) == 0 else {
            let error = Glibc.errno
            for fd in [epoll, pipe.reader, pipe.writer] { Socket.close(fd) }
            throw Socket.failure("epoll_ctl", error)
        }
        self.epoll = epoll
        (stopReader, stopWriter) = pipe
    }

    deinit {
        // Never started: nobody else holds the descriptors. A started loop's
        // thread closes them when it ends.
        if !started { for fd in [epoll, stopReader, stopWriter] { Socket.close(fd) } }
    }

    /// Starts the polling thread; it runs until `stop()`.
    func start(name: String) {
        guard !started, !stopped else { return }
        started = true
        let (epoll, stopReader, stopWriter, reports, hold) = (epoll, stopReader, stopWriter, reports, hold)
        let lazy = lazyToken.map { UInt32(truncatingIfNeeded: $0) }
        let thread = Thread {
            Self.run(epoll: epoll, stopReader: stopReader, stopWriter: stopWriter, reports: reports, hold: hold, lazy: lazy)
        }
        thread.name = name
        thread.start()
    }

    /// Watches `fd` under `token`, with no interest yet. (The kernel may
    /// still report a hang-up once; `claim` finds nothing asked and drops it.)
    func register(_ fd: Int32, token: Int) {
        guard !stopped else { return }
        registrations[fd] = Registration(token: token, interest: 0)
        var event = epoll_event(events: EPOLLONESHOT.rawValue, data: epoll_data_t(u64: Self.data(fd: fd, token: token)))
        if epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0, Glibc.errno == EEXIST {
            // The number was closed without `remove`: take it over.
            _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
        }
    }

    /// Asks for one readiness report for `fd` (added to any pending
    /// interest). Asking again for what is pending costs nothing: either
    /// the kernel still waits for it, or a report is on its way whose
    /// `claim` hands it over or re-arms it.
    func arm(_ fd: Int32, read: Bool = false, write: Bool = false) {
        guard !stopped, var registration = registrations[fd] else { return }
        let wanted = registration.interest | (read ? Self.readFlags : 0) | (write ? Self.writeFlags : 0)
        guard wanted != registration.interest else { return }
        registration.interest = wanted
        registrations[fd] = registration
        rearm(fd, registration)
    }

    /// The readiness a report stands for, which is then no longer pending;
    /// anything still asked for is re-armed, since a one-shot report
    /// disarms the whole descriptor. A hang-up or error delivers all that
    /// was asked for (the call then fails and says why). Nil for a stale
    /// report (removed, or the number now has another token).
    func claim(_ report: Report) -> Readiness? {
        guard !stopped, var registration = registrations[report.fd],
              UInt32(truncatingIfNeeded: registration.token) == report.token else { return nil }
        let failed = report.flags & Self.failureFlags != 0
        let readable = registration.interest & Self.readFlags != 0 && (failed || report.flags & Self.readFlags != 0)
        let writable = registration.interest & Self.writeFlags != 0 && (failed || report.flags & Self.writeFlags != 0)
        if readable { registration.interest &= ~Self.readFlags }
        if writable { registration.interest &= ~Self.writeFlags }
        registrations[report.fd] = registration
        if registration.interest != 0 { rearm(report.fd, registration) }
        return Readiness(token: registration.token, readable: readable, writable: writable)
    }

    /// From now on a wake-up that reports only the lazy registration is
    /// handed over after `window` at most, or with the next other report
    /// if one comes sooner (its descriptor stays disarmed meanwhile, so
    /// what arrives waits in the kernel and is read in one go). Zero: at
    /// once. The owner sets it at the end of each turn: zero while anything
    /// with a short deadline is under way (a start burst, an answer, a
    /// handshake), so only an idle node's hearing waits.
    func holdLazyReports(for window: Duration) {
        let (seconds, attoseconds) = window.components
        hold.milliseconds.store(max(0, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)), ordering: .relaxed)
    }

    /// Stops watching `fd`. Call before closing it.
    func remove(_ fd: Int32) {
        guard !stopped, registrations.removeValue(forKey: fd) != nil else { return }
        var unused = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &unused)
    }

    /// Ends the thread and finishes `reports`. Nothing is watched after.
    func stop() {
        guard !stopped else { return }
        stopped = true
        registrations.removeAll()
        guard started else {
            reports.finish()
            return
        }
        stopper.stop()
    }

    /// Stops a running loop's thread from a deinit, which may not touch
    /// the loop itself (it is not Sendable). Only for a loop that was
    /// started and not stopped: the thread closes the pipe when it ends.
    struct Stopper: Sendable {
        fileprivate let writer: Int32

        func stop() {
            var byte: UInt8 = 1
            _ = Glibc.write(writer, &byte, 1)
        }
    }

    var stopper: Stopper { Stopper(writer: stopWriter) }

    private func rearm(_ fd: Int32, _ registration: Registration) {
        var event = epoll_event(events: registration.interest | EPOLLONESHOT.rawValue,
                                data: epoll_data_t(u64: Self.data(fd: fd, token: registration.token)))
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, fd, &event)
    }

    private static func data(fd: Int32, token: Int) -> UInt64 {
        UInt64(UInt32(bitPattern: fd)) | UInt64(UInt32(truncatingIfNeeded: token)) << 32
    }

    /// The thread: waits, sends each wake-up's reports as one batch (a
    /// batch of only `lazy`'s waits for company, `holdLazyReports`), and
    /// closes the shared descriptors once stopped (the owner no longer
    /// touches them after `stop`).
    private static func run(epoll: Int32, stopReader: Int32, stopWriter: Int32,
                            reports: EventChannel<[Report]>, hold: LazyHold, lazy: UInt32?) {
        let capacity = 256
        var buffer = [epoll_event](repeating: epoll_event(), count: capacity)
        var stopping = false
        var lazyBatch = LazyBatch<Report>()
        while !stopping {
            let timeout = lazyBatch.timeout(now: monotonicMilliseconds()).map { Int32(clamping: $0) } ?? -1
            let count = epoll_wait(epoll, &buffer, Int32(capacity), timeout)
            if count < 0 {
                // EINTR: wait again. Anything else is not fixable by retrying
                // at once; back off briefly instead of spinning.
                if Glibc.errno != EINTR { usleep(10_000) }
                continue
            }
            var woken: [Report] = []
            woken.reserveCapacity(Int(count))
            for event in buffer[0..<Int(count)] {
                let data = event.data.u64
                if data == stopData {
                    stopping = true
                    continue
                }
                woken.append(Report(fd: Int32(bitPattern: UInt32(truncatingIfNeeded: data)),
                                    token: UInt32(truncatingIfNeeded: data >> 32), flags: event.events))
            }
            guard !stopping else { continue }
            let window = lazy == nil ? 0 : hold.milliseconds.load(ordering: .relaxed)
            guard var batch = lazyBatch.woke(with: woken, now: monotonicMilliseconds(), window: window,
                                             isLazy: { $0.token == lazy }) else { continue }
            // By token: the discovery socket (lowest) before links ready in
            // the same wake-up, so a leave datagram arrives before the end
            // of stream it explains.
            batch.sort { $0.token < $1.token }
            reports.yield(batch)
        }
        for fd in [epoll, stopReader, stopWriter] { Socket.close(fd) }
        reports.finish()
    }

    private static func monotonicMilliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}

/// The window `PollLoop.holdLazyReports` sets, read by the poll thread.
private final class LazyHold: Sendable {
    let milliseconds = Atomic<Int>(0)
}
#endif
