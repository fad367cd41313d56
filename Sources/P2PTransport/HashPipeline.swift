import ChatCrypto
import Foundation

/// Hashes a transfer's records on a thread of its own, so the link's
/// thread only reads, decrypts and writes: the two run side by side
/// instead of one after the other. Bounded: at most `capacity` records
/// wait; past that `add` blocks the link's thread (backpressure, so
/// memory stays at `capacity` records however slow the hashing).
///
/// @unchecked Sendable: every field is read and written under
/// `condition`'s lock, and the hasher is used by the worker alone until
/// `finish` has seen it stop.
final class HashPipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [[UInt8]] = []
    private var head = 0
    private var closed = false
    private var stopped = false
    private let hasher: SHA256Stream
    private let capacity: Int

    init(hasher: SHA256Stream, capacity: Int = 16) {
        self.hasher = hasher
        self.capacity = capacity
        Thread { [self] in run() }.start()
    }

    /// Queues a record to hash; waits while `capacity` records wait.
    func add(_ bytes: [UInt8]) {
        condition.lock()
        while queue.count - head >= capacity, !closed { condition.wait() }
        if !closed { queue.append(bytes) }
        condition.broadcast()
        condition.unlock()
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
            while head == queue.count, !closed { condition.wait() }
            if head == queue.count {
                stopped = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let next = queue[head]
            head += 1
            if head > 64 { queue.removeFirst(head); head = 0 }
            condition.broadcast()
            condition.unlock()
            next.withUnsafeBytes { hasher.update($0) }
        }
    }
}
