import Synchronization
import Testing

/// Tests that run on the wall clock with real sockets, threads or child
/// processes take this trait (`@Suite(.realTime)`): they run one at a time,
/// while the pure tests around them still run in parallel.
///
/// Why: `swift test` starts every test at once, and the cooperative pool
/// has one thread per core. Dozens of nodes with 200 ms keepalives and 1 s
/// handshake and dead-peer deadlines then share two cores, and their
/// deadlines expire from starvation, not from the behaviour under test.
/// One at a time, each gets the machine its deadlines were written for;
/// and each starts once the pool runs a new job promptly
/// (`PoolResponsiveness`), not while the pure tests queued at the run's
/// start still fill it.
public struct RealTimeTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Scopes each test case, never a whole suite: a suite holding the
    /// gate would wait forever on its own tests.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> RealTimeTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        await RealTimeGate.process.acquire()
        await PoolResponsiveness().wait()
        do {
            try await function()
        } catch {
            RealTimeGate.process.release()
            throw error
        }
        RealTimeGate.process.release()
    }
}

extension Trait where Self == RealTimeTrait {
    /// Runs on the wall clock with real I/O: one such test at a time.
    public static var realTime: RealTimeTrait { RealTimeTrait() }
}

/// A FIFO async semaphore of one permit.
public final class RealTimeGate: Sendable {
    // One per test process by necessity: it orders tests of every suite
    // and module in the binary, and traits are values with no shared home.
    static let process = RealTimeGate()

    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    public init() {}

    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                if !state.held { state.held = true; return true }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    public func release() {
        // The permit passes straight to the first waiter, so nobody jumps the queue.
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty { state.held = false; return nil }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
