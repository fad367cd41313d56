#if canImport(Glibc)
import ChatCore
import ChatCrypto
import Glibc

/// One transfer link's socket, used by the one thread that runs the link:
/// blocking reads and writes with a timeout, so backpressure is TCP's own
/// (a write blocks while the peer's window is full) and a silent peer ends
/// the link. The timeout bounds a whole frame, not each byte: on a lossy
/// link TCP's retransmission backoff can trickle a byte a minute, and only
/// a new connection starts it over. Frames as on a chat link: a
/// 2-byte big-endian length (16 to 65535), then the body. Reads go
/// through an inbox of a few records, so a record costs at most one
/// recv(2), and a data record is opened straight into the caller's buffer.
///
/// Not Sendable: one thread owns it from connect or accept to `close`;
/// another thread may only call `shutdown` (through the service's table of
/// descriptors) to wake it.
final class FileLinkConnection {
    let fd: Int32
    var cipher: NoiseTransport?
    private var closed = false
    /// How long one frame may take to read or write (`setTimeout`).
    private var timeoutMillis: Int64 = 0
    /// Bytes read but not yet taken: `inbox[inboxStart..<inboxEnd]`.
    private let inbox = UnsafeMutableRawBufferPointer.allocate(byteCount: FileLinkConnection.inboxBytes, alignment: 16)
    private var inboxStart = 0
    private var inboxEnd = 0
    /// Four largest frames: one recv(2) takes what the socket has, up to that.
    static let inboxBytes = 4 * (2 + 65_535)
    /// The room a data record's plaintext needs (`readRecord(into:)`).
    static let recordRoomBytes = 65_535

    enum Failure: Error, Sendable, CustomStringConvertible {
        case system(TransportError)
        case closedByPeer
        case timedOut
        case badFrame(String)
        case crypto(CryptoError)
        var description: String {
            switch self {
            case .system(let error): "\(error)"
            case .closedByPeer: "the peer closed the transfer link"
            case .timedOut: "the transfer link went silent"
            case .badFrame(let why): "bad frame on the transfer link: \(why)"
            case .crypto(let error): "transfer record failed: \(error)"
            }
        }
    }

    /// Takes an accepted descriptor (made blocking here).
    init(accepted fd: Int32, timeoutSeconds: Int) throws(Failure) {
        self.fd = fd
        try makeBlocking(timeoutSeconds: timeoutSeconds)
    }

    /// Dials `endpoint`, waiting at most `timeoutSeconds` for the connect.
    init(dialing endpoint: IPv4Endpoint, timeoutSeconds: Int) throws(Failure) {
        let started: (fd: Int32, inProgress: Bool)
        do { started = try Socket.connect(to: endpoint) } catch { throw .system(error) }
        fd = started.fd
        if started.inProgress {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, Int32(timeoutSeconds * 1000))
            guard ready > 0 else {
                Glibc.close(fd)
                throw ready == 0 ? .timedOut : .system(Socket.failure("poll", Glibc.errno))
            }
            let error = Socket.pendingError(fd)
            guard error == 0 else {
                Glibc.close(fd)
                throw .system(Socket.failure("connect", error))
            }
        }
        do throws(Failure) { try makeBlocking(timeoutSeconds: timeoutSeconds) } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        close()
        inbox.deallocate()
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    func setTimeout(seconds: Int) {
        timeoutMillis = Int64(seconds) * 1000
        // Also on the socket: a backstop for each call.
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    private func makeBlocking(timeoutSeconds: Int) throws(Failure) {
        let status = fcntl(fd, F_GETFL)
        guard status >= 0, fcntl(fd, F_SETFL, status & ~O_NONBLOCK) >= 0 else { throw .system(Socket.failure("fcntl", Glibc.errno)) }
        setTimeout(seconds: timeoutSeconds)
    }

    // MARK: Frames

    func writeFrame(_ body: [UInt8]) throws(Failure) {
        guard body.count >= 16, body.count <= 65_535 else { throw .badFrame("frame of \(body.count) bytes") }
        try writeAll([UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body)
    }

    func readFrame() throws(Failure) -> [UInt8] {
        Array(try nextFrame())
    }

    /// The next frame's body, lent from the inbox until the next read.
    /// One deadline covers the whole frame, length and body: it starts with
    /// the frame's first byte (already here if it came with the last read).
    private func nextFrame() throws(Failure) -> UnsafeRawBufferPointer {
        var deadline: Int64? = inboxEnd > inboxStart ? Self.nowMillis() + timeoutMillis : nil
        try fill(2, deadline: &deadline)
        let length = Int(inbox[inboxStart]) << 8 | Int(inbox[inboxStart + 1])
        guard length >= 16 else { throw .badFrame("frame of \(length) bytes") }
        try fill(2 + length, deadline: &deadline)
        let body = UnsafeRawBufferPointer(rebasing: inbox[(inboxStart + 2)..<(inboxStart + 2 + length)])
        inboxStart += 2 + length
        return body
    }

    // MARK: Records

    /// Seals `plain` and writes it as one frame.
    func writeRecord(_ plain: [UInt8]) throws(Failure) {
        var out: [UInt8] = []
        out.reserveCapacity(plain.count + 18)
        do {
            try plain.withUnsafeBytes { raw in try cipher!.sealFramed(raw, appendingTo: &out) }
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch {
            throw .crypto(.cipherFailed)
        }
        try writeAll(out)
    }

    func writeRecord(_ record: FileLinkRecord) throws(Failure) {
        try writeRecord(record.bytes)
    }

    func readRecord() throws(Failure) -> FileLinkRecord {
        let frame = try nextFrame()
        let plain: [UInt8]
        do { plain = try cipher!.open(frame) } catch { throw .crypto(error) }
        do { return try FileLinkRecord(decoding: plain) } catch { throw .badFrame(error.description) }
    }

    /// A record read by `readRecord(into:)`.
    enum Received {
        /// A data record's file bytes, in the caller's room.
        case data(offset: Int64, bytes: UnsafeRawBufferPointer)
        case other(FileLinkRecord)
    }

    /// The next record, opened into `room` (at least `recordRoomBytes`):
    /// a data record's bytes are not copied again; other records are
    /// decoded as `readRecord` does.
    func readRecord(into room: UnsafeMutableRawBufferPointer) throws(Failure) -> Received {
        let frame = try nextFrame()
        let count: Int
        do { count = try cipher!.open(frame, into: room) } catch { throw .crypto(error) }
        let header = FileLinkRecord.dataHeaderBytes
        if count > header, room[0] == 0x02 {
            var offset: UInt64 = 0
            for index in 1..<header { offset = offset << 8 | UInt64(room[index]) }
            return .data(offset: Int64(bitPattern: offset), bytes: UnsafeRawBufferPointer(rebasing: room[header..<count]))
        }
        do { return .other(try FileLinkRecord(decoding: Array(room[0..<count]))) } catch { throw .badFrame(error.description) }
    }

    // MARK: Bytes

    func writeAll(_ bytes: [UInt8]) throws(Failure) {
        var sent = 0
        let deadline = Self.nowMillis() + timeoutMillis
        while sent < bytes.count {
            if sent > 0 { try wait(for: Int16(POLLOUT), until: deadline) }
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count; continue }
            let error = Glibc.errno
            if count < 0 && error == EINTR { continue }
            if count < 0 && (error == EAGAIN || error == EWOULDBLOCK) { throw .timedOut }
            throw .system(Socket.failure("send", error))
        }
    }

    /// Reads until `count` bytes wait in the inbox, moving what waits to
    /// its front first when the room past it is short. Until a byte has
    /// come (`deadline` nil) a read waits the socket's own timeout, the
    /// link's idle limit; from the first byte on, all reads share `deadline`.
    private func fill(_ count: Int, deadline: inout Int64?) throws(Failure) {
        guard inboxEnd - inboxStart < count else { return }
        if inboxStart + count > inbox.count {
            let waiting = inboxEnd - inboxStart
            if waiting > 0 { inbox.baseAddress!.copyMemory(from: inbox.baseAddress! + inboxStart, byteCount: waiting) }
            inboxStart = 0
            inboxEnd = waiting
        }
        while inboxEnd - inboxStart < count {
            if let deadline { try wait(for: Int16(POLLIN), until: deadline) }
            let got = Glibc.recv(fd, inbox.baseAddress! + inboxEnd, inbox.count - inboxEnd, 0)
            if got > 0 {
                inboxEnd += got
                if deadline == nil { deadline = Self.nowMillis() + timeoutMillis }
                continue
            }
            if got == 0 { throw .closedByPeer }
            let error = Glibc.errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { throw .timedOut }
            throw .system(Socket.failure("recv", error))
        }
    }

    /// Waits until the socket is ready for `events`, or throws `.timedOut`
    /// at `deadline` (a frame that started but did not finish in time).
    private func wait(for events: Int16, until deadline: Int64) throws(Failure) {
        while true {
            let remaining = deadline - Self.nowMillis()
            guard remaining > 0 else { throw .timedOut }
            var poller = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, Int64(Int32.max))))
            if ready > 0 { return }  // ready, or an error or hang-up the next call reports
            if ready == 0 { throw .timedOut }
            if Glibc.errno != EINTR { throw .system(Socket.failure("poll", Glibc.errno)) }
        }
    }

    private static func nowMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
#endif
