import Dispatch
import Foundation
import Synchronization

/// Starts a test's child processes so that none outlives the test binary,
/// even when the binary crashes or is killed with SIGKILL (no cleanup code
/// runs then, so killing a process group at exit is not enough).
///
/// Each child runs under `setpriv --pdeathsig KILL` (util-linux): the
/// kernel sends it SIGKILL when its parent dies (PR_SET_PDEATHSIG, kept
/// across the exec). "Parent" is the *thread* that spawned the child, and
/// the concurrency pool's threads come and go, so every child is spawned
/// from one dedicated thread that lives as long as the process.
public enum ChildLauncher {
    /// The launcher every child goes through.
    public static let setpriv = "/usr/bin/setpriv"

    /// The command line that runs `executable` with `arguments` under the
    /// death signal.
    public static func command(_ executable: String, _ arguments: [String]) -> (executable: URL, arguments: [String]) {
        // Without util-linux the children still run (OrphanTests then fails
        // and says why children may outlive a crash).
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return (URL(fileURLWithPath: executable), arguments) }
        return (URL(fileURLWithPath: setpriv), ["--pdeathsig", "KILL", "--", executable] + arguments)
    }

    /// Runs `process` (already configured) from the spawner thread.
    public static func run(_ process: Process) throws {
        let box = UncheckedBox(process)
        try spawner.perform { try box.value.run() }
    }

    // One per test binary by necessity: it is the parent thread of every
    // child, so it must never end.
    private static let spawner = SpawnerThread()
}

/// Runs jobs one at a time on a thread that never exits.
private final class SpawnerThread: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let ready = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                ready.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job()
            }
        }
        thread.name = "ChildLauncher"
        thread.start()
    }

    /// Runs `body` on the thread and waits for it (a spawn takes milliseconds).
    func perform(_ body: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        jobs.withLock {
            $0.append {
                do { try body() } catch { failure.withLock { $0 = error } }
                done.signal()
            }
        }
        ready.signal()
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// Carries a non-Sendable value to the spawner thread. Safe here: the
/// caller waits until the job ends, so only one thread touches the value at
/// a time.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
