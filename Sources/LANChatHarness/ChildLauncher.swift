import Dispatch
import Foundation
import Synchronization

/// Starts child processes so that none outlives its parent, even when the
/// parent crashes or is killed with SIGKILL (no cleanup code runs then, so
/// killing a process group at exit is not enough).
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
    public static func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        // Without util-linux the children still run (OrphanTests then fails
        // and says why children may outlive a crash).
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return (executable, arguments) }
        return (setpriv, ["--pdeathsig", "KILL", "--", executable] + arguments)
    }

    /// Runs `body` on the spawner thread and returns what it returns.
    static func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        try spawner.perform(body)
    }

    // One per process by necessity: it is the parent thread of every
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
    func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        jobs.withLock {
            $0.append {
                let result = Result { try body() }
                outcome.withLock { $0 = result }
                done.signal()
            }
        }
        ready.signal()
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
