import ChatCrypto
import Foundation

/// Hashes a transfer's records on a thread of its own, so the link's
/// thread only reads, decrypts and writes: the two run side by side
/// instead of one after the other. The records live in a ring of
/// `capacity` buffers allocated once: the link's thread opens a record
/// straight into `room()`, writes it, and hands it over with `add`; the
/// worker hashes it in place and frees the buffer. No copy, no allocation
/// per record; when every buffer waits to be hashed, `room()` blocks the
/// link's thread (backpressure, so memory stays at `capacity` buffers
/// however slow the hashing).
///
/// @unchecked Sendable: the counters are read and written under
/// `condition`'s lock; a buffer belongs to the link's thread from `room()`
/// to `add`, then to the worker until it counts it hashed; the hasher is
/// used by the worker alone until `finish` has seen it stop.
final class HashPipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private let buffers: [UnsafeMutableRawBufferPointer]
    /// Lent once closed, so a late writer never touches a buffer the
    /// worker may still be hashing.
    private let spare: UnsafeMutableRawBufferPointer
    /// Per buffer, the bytes `add` handed over.
    private var ranges: [Range<Int>]
    /// Records handed over, and hashed; buffer `n % capacity` holds record n.
    private var added = 0
    private var hashed = 0
    private var closed = false
    private var stopped = false
    private let hasher: SHA256Stream
    private let capacity: Int

    /// `threadStart` runs first on the worker's thread (its priority).
    init(hasher: SHA256Stream, capacity: Int = 16, bufferBytes: Int = FileLinkConnection.recordRoomBytes,
         threadStart: @escaping @Sendable () -> Void = {}) {
        self.hasher = hasher
        self.capacity = capacity
        buffers = (0..<capacity).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: bufferBytes, alignment: 16) }
        spare = .allocate(byteCount: bufferBytes, alignment: 16)
        ranges = Array(repeating: 0..<0, count: capacity)
        Thread { [self] in
            threadStart()
            run()
        }.start()
    }

    // The worker holds `self` while it runs: no buffer is freed under it.
    deinit {
        for buffer in buffers { buffer.deallocate() }
        spare.deallocate()
    }

    /// The buffer for the next record; waits while every buffer waits to
    /// be hashed. The same buffer until `add` is called.
    func room() -> UnsafeMutableRawBufferPointer {
        condition.lock()
        while added - hashed >= capacity, !closed { condition.wait() }
        let buffer = closed ? spare : buffers[added % capacity]
        condition.unlock()
        return buffer
    }

    /// Hands over `bytes`, which lie in the buffer `room()` returned last.
    func add(_ bytes: UnsafeRawBufferPointer) {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        let buffer = buffers[added % capacity]
        let start = bytes.baseAddress! - UnsafeRawPointer(buffer.baseAddress!)
        precondition(start >= 0 && start + bytes.count <= buffer.count, "HashPipeline.add: bytes outside the buffer room() lent")
        ranges[added % capacity] = start..<(start + bytes.count)
        added += 1
        condition.broadcast()
    }

    /// Every record added is hashed: the digest.
    func finish() -> [UInt8] {
        close()
        condition.lock()
        while !stopped { condition.wait() }
        condition.unlock()
        return hasher.finish()
    }

    /// No more records (the worker hashes what waits, then ends).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while hashed == added, !closed { condition.wait() }
            if hashed == added {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let index = hashed % capacity
            let range = ranges[index]
            condition.unlock()
            hasher.update(UnsafeRawBufferPointer(rebasing: buffers[index][range]))
            condition.lock()
            hashed += 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
