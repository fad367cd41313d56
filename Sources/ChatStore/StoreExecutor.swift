import Dispatch

/// Where a `ChatStore` runs. A file store runs on a dispatch queue of its
/// own, so SQLite's blocking calls (an fsync can take milliseconds) never
/// hold one of the few threads of Swift's cooperative pool, where they
/// would stall every other task of the process. An in-memory store never
/// waits for a disk, so it runs on the pool like any actor: a call then
/// costs an actor switch on the caller's thread (about 1 µs) instead of
/// waking the queue's thread and the caller's again (25-36 µs at load 1.3,
/// 100-240 µs at load 20 on the 2-core machine docs/BENCHMARKS.md measures).
enum StoreExecutor: Sendable {
    case queue(StoreQueue)
    case pool(StoreHost)

    init(label: String, inMemory: Bool) {
        self = inMemory ? .pool(StoreHost()) : .queue(StoreQueue(label: label))
    }

    var unowned: UnownedSerialExecutor {
        switch self {
        case .queue(let queue): queue.asUnownedSerialExecutor()
        case .pool(let host): host.unownedExecutor
        }
    }
}

/// A serial executor on a dispatch queue (file stores).
final class StoreQueue: SerialExecutor, Sendable {
    private let queue: DispatchQueue

    /// Set on every store queue, so a store can tell where it runs.
    static let marker = DispatchSpecificKey<Bool>()

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        queue.setSpecific(key: Self.marker, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An empty actor whose default executor an in-memory store borrows: the
/// store's calls are then serialized on the cooperative pool.
actor StoreHost {}
