import Foundation
import Glibc
import Synchronization
import Testing

/// Pure tests that compute for seconds without a suspension point (a
/// simulation of hundreds of nodes, a long property run) take this trait
/// (`@Test(.heavy)`): their bodies run on one thread of their own, one
/// such test at a time, instead of on the cooperative pool.
///
/// Why: the pool has one thread per core, and a job holds its thread until
/// it returns. Two 13 s simulations started together took both, and for
/// those 13 s the wall-clock tests beside them (`.realTime`) could not run
/// a single actor turn: a handshake's deadline ran out from starvation.
/// On a thread of its own a heavy test shares the cores through the
/// kernel's scheduler, like any other thread, and the pool stays free.
public struct HeavyTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> HeavyTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A nonisolated test body runs on its task's preferred executor.
        try await withTaskExecutorPreference(HeavyThread.process) {
            try await function()
        }
    }
}

extension Trait where Self == HeavyTrait {
    /// Computes for seconds on end: runs off the cooperative pool.
    public static var heavy: HeavyTrait { HeavyTrait() }
}

/// A task executor with one thread of its own, running jobs in the order
/// they came.
public final class HeavyThread: TaskExecutor {
    // One per test process by necessity, like `RealTimeGate.process`: it
    // orders heavy tests of every suite and module in the binary.
    static let process = HeavyThread()

    private let jobs = Mutex([UnownedJob]())
    private let thread = Mutex<pthread_t?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    public init() {
        let thread = Thread { [self] in
            self.thread.withLock { $0 = pthread_self() }
            while true {
                ready.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Whether the caller runs on the heavy tests' thread.
    public static var isCurrent: Bool {
        process.thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}
