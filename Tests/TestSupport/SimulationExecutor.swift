import Foundation
import Glibc
import Synchronization

/// Runs a simulation's tasks one at a time, on one thread, in the order
/// they became runnable: swift-nio's `EmbeddedEventLoop` for whole actors.
///
/// Work reaches it two ways. A task created with this executor as its
/// preference (`Task(executorPreference:)`) queues here, and the default
/// actors it calls (a `ChatNode`, an in-memory `ChatStore`) run here too.
/// Everything else those tasks start (`Task {}`, `Task.detached`, a
/// continuation resumed, an actor woken) goes to Swift's global executor,
/// and a hook on it (`swift_task_enqueueGlobal_hook`, the runtime's hook for
/// exactly this) sends a job queued from the simulation's thread here
/// instead. Jobs queued from any other thread (other tests running in
/// parallel) pass through untouched.
///
/// So "settled" is exact, not a guess: when `runUntilIdle` returns, no
/// task of the simulation can run until the simulation itself delivers
/// something or moves the clock. Nothing may leave for another thread
/// (a file store's queue, `Task.sleep`): that work would come back on the
/// global pool, outside the simulation.
public final class SimulationExecutor: TaskExecutor {
    private let jobs = Mutex(JobQueue())

    public init() { SimulationThread.installHook() }

    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(unowned: UnownedJob(job))
    }

    func enqueue(unowned job: UnownedJob) {
        jobs.withLock { $0.append(job) }
    }

    /// Runs queued jobs, and the jobs they queue, until none is left;
    /// returns how many ran. Only on the simulation's thread (inside `run`).
    @discardableResult
    public func runUntilIdle() -> Int {
        precondition(SimulationThread.current === self, "runUntilIdle outside SimulationExecutor.run")
        var count = 0
        while let job = jobs.withLock({ $0.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
            count += 1
        }
        return count
    }

    /// Runs `body` on a thread of its own marked as this simulation's (so
    /// what it starts queues here), and returns its result. The mark is
    /// gone before the caller resumes, so the caller's task never joins the
    /// simulation.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let thread = Thread { [self] in
                SimulationThread.mark(self)
                let result = body()
                SimulationThread.mark(nil)
                continuation.resume(returning: result)
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}

/// A FIFO of jobs (removal from the front in O(1)).
private struct JobQueue: ~Copyable {
    private var items: [UnownedJob] = []
    private var head = 0

    mutating func append(_ job: UnownedJob) { items.append(job) }

    mutating func removeFirst() -> UnownedJob? {
        guard head < items.count else { return nil }
        let job = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return job
    }
}

/// Which simulation, if any, the current thread runs, and the hook that
/// routes global jobs queued from such a thread to it.
enum SimulationThread {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// A per-thread slot for the (unretained) executor: `run` keeps the
    /// executor alive while its thread is marked.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create")
        return key
    }()

    static var current: SimulationExecutor? {
        pthread_getspecific(key).map { Unmanaged<SimulationExecutor>.fromOpaque($0).takeUnretainedValue() }
    }

    static func mark(_ executor: SimulationExecutor?) {
        pthread_setspecific(key, executor.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    /// Installed once per process, never removed: off a marked thread it
    /// only forwards, so tests that run beside a simulation are unaffected.
    private static let installed: Void = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else {
            fatalError("the Swift runtime has no swift_task_enqueueGlobal_hook")
        }
        _ = key
        symbol.assumingMemoryBound(to: Hook?.self).pointee = { job, original in
            if let executor = SimulationThread.current {
                executor.enqueue(unowned: job)
            } else {
                original(job)
            }
        }
    }()

    static func installHook() { _ = installed }
}
