import Dispatch

/// The serial executor a `ChatStore` runs on: a dispatch queue of its own,
/// so SQLite's blocking calls (an fsync can take milliseconds) never hold
/// one of the few threads of Swift's cooperative pool, where they would
/// stall every other task of the process.
final class StoreExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: the queue is immutable and itself thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
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
