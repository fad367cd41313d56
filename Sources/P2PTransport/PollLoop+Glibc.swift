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

    /// The poll(2) set, kept between rounds and changed in place, so a
    /// round costs a copy and a scan, not a rebuild: with hundreds of idle
    /// connections open (a slowloris crowd) the loop stays quick.
    ///
    /// Entry 0 is the wake pipe. The others are in registration order,
    /// except that removing one moves the last into its place; the discovery
    /// socket, registered first, therefore stays ahead of every link (see
    /// `run`). A descriptor with no interest is stored negated (`~fd`), which
    /// poll(2) skips, so a hung-up socket nobody asked about does not spin.
    private struct State {
        var pollSet: [pollfd] = []
        var tokens: [Int] = []
        var slots: [Int32: Int] = [:]
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
        let reader = wakeReader
        state.withLock { state in
            state.pollSet = [pollfd(fd: reader, events: Int16(POLLIN), revents: 0)]
            state.tokens = [0]
        }
    }

    /// Starts the polling thread; it runs until `stop()`.
    func start(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Watches `fd` under `token`, with no interest yet.
    func register(_ fd: Int32, token: Int) {
        state.withLock { state in
            let entry = pollfd(fd: ~fd, events: 0, revents: 0)
            if let slot = state.slots[fd] {
                state.pollSet[slot] = entry
                state.tokens[slot] = token
            } else {
                state.slots[fd] = state.pollSet.count
                state.pollSet.append(entry)
                state.tokens.append(token)
            }
        }
    }

    /// Asks for one readiness report for `fd` (added to any pending interest).
    func arm(_ fd: Int32, read: Bool = false, write: Bool = false) {
        state.withLock { state in
            guard let slot = state.slots[fd] else { return }
            if read { state.pollSet[slot].events |= Int16(POLLIN) }
            if write { state.pollSet[slot].events |= Int16(POLLOUT) }
            if state.pollSet[slot].events != 0 { state.pollSet[slot].fd = fd }
            wake(state)
        }
    }

    /// Stops watching `fd`. Call before closing it: the wake-up makes poll(2)
    /// drop its reference, without which the kernel would keep the socket
    /// open (and hold back its FIN) until the next event.
    func remove(_ fd: Int32) {
        state.withLock { state in
            guard let slot = state.slots.removeValue(forKey: fd) else { return }
            let last = state.pollSet.count - 1
            if slot != last {
                state.pollSet[slot] = state.pollSet[last]
                state.tokens[slot] = state.tokens[last]
                let moved = state.pollSet[slot].fd
                state.slots[moved < 0 ? ~moved : moved] = slot
            }
            state.pollSet.removeLast()
            state.tokens.removeLast()
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
                pollSet = state.pollSet
                tokens = state.tokens
                return state.stopping
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
                // In set order, so the discovery socket is reported before
                // links that became ready in the same round: a leave
                // datagram then arrives before the end of stream it explains.
                for index in pollSet.indices.dropFirst() where pollSet[index].revents != 0 {
                    let fd = pollSet[index].fd
                    // Removed meanwhile, or the number now belongs to a new registration.
                    guard let slot = state.slots[fd], state.tokens[slot] == tokens[index] else { continue }
                    let revents = Int32(pollSet[index].revents)
                    let failed = revents & (Int32(POLLHUP) | Int32(POLLERR) | Int32(POLLNVAL)) != 0
                    var interest = state.pollSet[slot].events
                    if interest & Int16(POLLIN) != 0, failed || revents & Int32(POLLIN) != 0 {
                        interest &= ~Int16(POLLIN)
                        ready.append(Event(token: tokens[index], readiness: .readable))
                    }
                    if interest & Int16(POLLOUT) != 0, failed || revents & Int32(POLLOUT) != 0 {
                        interest &= ~Int16(POLLOUT)
                        ready.append(Event(token: tokens[index], readiness: .writable))
                    }
                    state.pollSet[slot].events = interest
                    if interest == 0 { state.pollSet[slot].fd = ~fd }
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
