#if canImport(Glibc)
import Foundation
import Glibc
import Synchronization

/// A readiness notifier: one thread blocked in poll(2) over the service's
/// descriptors, reporting "readable" or "writable" as events in order.
///
/// Interest is one-shot, like EPOLLONESHOT: once reported, a descriptor is
/// not watched again until `arm` is called. The service does every read,
/// write and accept itself after an event, then re-arms, so the loop never
/// touches sockets' data, there is no buffer between the kernel and the
/// service, and a slow service simply reads later (natural backpressure).
///
/// Events carry the registration's token, not the descriptor, because a
/// descriptor number is reused after close; a stale readiness for a reused
/// number is at worst a spurious wake-up, which the non-blocking calls
/// absorb as would-block.
final class PollLoop: Sendable {
    enum Readiness: Sendable { case readable, writable }

    struct Event: Sendable {
        var token: Int
        var readiness: Readiness
    }

    private struct Registration {
        var token: Int
        var wantsRead = false
        var wantsWrite = false
    }

    private struct State {
        var registrations: [Int32: Registration] = [:]
        var stopping = false
        /// Set once the wake pipe is closed, so nobody writes to a
        /// descriptor number that may already belong to someone else.
        var pipeClosed = false
    }

    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let state = Mutex(State())
    private let wakeReader: Int32
    private let wakeWriter: Int32

    init() throws(TransportError) {
        (wakeReader, wakeWriter) = try Socket.makeWakePipe()
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// Starts the polling thread; it runs until `stop()`.
    func start(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Watches `fd` under `token`, with no interest yet.
    func register(_ fd: Int32, token: Int) {
        state.withLock { $0.registrations[fd] = Registration(token: token) }
    }

    /// Asks for one readiness report for `fd` (added to any pending interest).
    func arm(_ fd: Int32, read: Bool = false, write: Bool = false) {
        state.withLock { state in
            guard var registration = state.registrations[fd] else { return }
            registration.wantsRead = registration.wantsRead || read
            registration.wantsWrite = registration.wantsWrite || write
            state.registrations[fd] = registration
            wake(state)
        }
    }

    /// Stops watching `fd`. Call before closing it: the wake-up makes poll(2)
    /// drop its reference, without which the kernel would keep the socket
    /// open (and hold back its FIN) until the next event.
    func remove(_ fd: Int32) {
        state.withLock { state in
            state.registrations[fd] = nil
            wake(state)
        }
    }

    /// Ends the thread and finishes `events`.
    func stop() {
        state.withLock { state in
            state.stopping = true
            wake(state)
        }
    }

    private func wake(_ state: borrowing State) {
        guard !state.pipeClosed else { return }
        var byte: UInt8 = 1
        // A full pipe already guarantees a wake-up; ignore EAGAIN.
        _ = Glibc.write(wakeWriter, &byte, 1)
    }

    private func run() {
        var pollSet: [pollfd] = []
        var tokens: [Int] = []
        var ready: [Event] = []
        while true {
            let stopping = state.withLock { state -> Bool in
                if state.stopping { return true }
                pollSet.removeAll(keepingCapacity: true)
                tokens.removeAll(keepingCapacity: true)
                pollSet.append(pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0))
                tokens.append(0)
                // Token order is registration order, so the discovery socket
                // (registered first) is reported before links that became
                // ready in the same round: a leave datagram then arrives
                // before the end of stream it explains.
                for (fd, registration) in state.registrations.sorted(by: { $0.value.token < $1.value.token }) {
                    var interest: Int16 = 0
                    if registration.wantsRead { interest |= Int16(POLLIN) }
                    if registration.wantsWrite { interest |= Int16(POLLOUT) }
                    guard interest != 0 else { continue }
                    pollSet.append(pollfd(fd: fd, events: interest, revents: 0))
                    tokens.append(registration.token)
                }
                return false
            }
            if stopping { break }
            let result = poll(&pollSet, nfds_t(pollSet.count), -1)
            if result < 0 {
                // EINTR: poll again. Anything else (EINVAL, ENOMEM) is not
                // fixable by retrying at once; back off briefly instead of spinning.
                if Glibc.errno != EINTR { usleep(10_000) }
                continue
            }
            if pollSet[0].revents != 0 { drainWakePipe() }
            ready.removeAll(keepingCapacity: true)
            state.withLock { state in
                for index in pollSet.indices.dropFirst() where pollSet[index].revents != 0 {
                    let fd = pollSet[index].fd
                    guard var registration = state.registrations[fd], registration.token == tokens[index] else { continue }
                    let revents = Int32(pollSet[index].revents)
                    let failed = revents & (Int32(POLLHUP) | Int32(POLLERR) | Int32(POLLNVAL)) != 0
                    if registration.wantsRead, failed || revents & Int32(POLLIN) != 0 {
                        registration.wantsRead = false
                        ready.append(Event(token: registration.token, readiness: .readable))
                    }
                    if registration.wantsWrite, failed || revents & Int32(POLLOUT) != 0 {
                        registration.wantsWrite = false
                        ready.append(Event(token: registration.token, readiness: .writable))
                    }
                    state.registrations[fd] = registration
                }
            }
            for event in ready { continuation.yield(event) }
        }
        state.withLock { state in
            state.pipeClosed = true
            Socket.close(wakeReader)
            Socket.close(wakeWriter)
        }
        continuation.finish()
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ Glibc.read(wakeReader, $0.baseAddress, $0.count) }) > 0 {}
    }
}
#endif
