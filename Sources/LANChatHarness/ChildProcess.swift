#if canImport(Glibc)
import Glibc
import Synchronization

/// A child process with pipes to its standard input, output and error,
/// for the tests (`NodeProcess`) and `lanchat-bench` (its child nodes and
/// helper programs) alike.
///
/// Started with posix_spawn(3) rather than Foundation's `Process`:
/// `Process.run()` on Linux (Swift 6.3.1) now and then crashes reading
/// /proc/self/fd past a buffer (swift-corelibs-foundation PR #5472), and
/// the bench's discovery row starts a few hundred processes with many pipes
/// open; it crashed 2 runs in 14. Every child goes through `ChildLauncher`,
/// so none outlives this process, and inherits no descriptor but its three.
public final class ChildProcess: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let pid: pid_t
    /// Our ends of its standard output and error (-1: not piped).
    public let output: Int32
    public let errors: Int32
    private let input: Mutex<Int32>
    /// Its wait status, once reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `path` (an absolute path) with `arguments`. `environment`:
    /// all it gets, or nil for this process's own. `pipeInput` /
    /// `pipeErrors`: a pipe, or /dev/null. Output is always piped.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                pipeInput: Bool, pipeErrors: Bool) throws {
        // A write to a child that has exited must fail, not kill this process.
        signal(SIGPIPE, SIG_IGN)
        let launch = ChildLauncher.command(path, arguments)
        let request = SpawnRequest(path: launch.executable, arguments: launch.arguments, environment: environment)
        defer { request.free() }
        // On the launcher's thread, pipes and all: no other spawn can
        // inherit a pipe between its creation and its close-on-exec flag.
        let ours = try ChildLauncher.perform { try request.spawn(pipeInput: pipeInput, pipeErrors: pipeErrors) }
        pid = ours.pid
        input = Mutex(ours.input)
        output = ours.output
        errors = ours.errors
    }

    /// Whether it has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid { status = raw }
            return reaped == 0
        }
    }

    /// Waits for it to exit; its exit code (128 + signal if killed).
    @discardableResult
    public func wait() -> Int32 {
        var raw: Int32 = 0
        let known = status.withLock { $0 }
        if let known { raw = known } else {
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status.withLock { $0 = raw }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand: the macros are not imported.
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    public func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

    /// Closes its standard input (it sees end of file), waits up to
    /// `timeout` seconds for it to exit, then kills it; its exit code.
    @discardableResult
    public func stop(within timeout: Double = 5) -> Int32 {
        closeInput()
        var left = Int(timeout * 100)
        while isRunning && left > 0 {
            usleep(10_000)
            left -= 1
        }
        if isRunning { kill(SIGKILL) }
        return wait()
    }

    /// Writes all of `bytes` to its standard input; false if it is closed.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        input.withLock { fd in
            guard fd >= 0 else { return false }
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    /// Closes its standard input (it sees end of file). Idempotent.
    public func closeInput() {
        input.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Kills it if it still runs and reaps it, then closes our ends. A
    /// thread reading `output` or `errors` must hold this object until it
    /// reaches the end, so no descriptor is closed under a read.
    deinit {
        closeInput()
        if isRunning {
            kill(SIGKILL)
            wait()
        }
        for fd in [output, errors] where fd >= 0 { close(fd) }
    }
}

/// What posix_spawn needs, as C strings made once on the caller's thread.
/// `@unchecked Sendable`: it crosses to the launcher's thread while the
/// caller waits for the spawn, so one thread uses it at a time, and the
/// caller frees it after.
private struct SpawnRequest: @unchecked Sendable {
    let path: String
    let argv: [UnsafeMutablePointer<CChar>?]
    /// nil: this process's environment.
    let envp: [UnsafeMutablePointer<CChar>?]?

    init(path: String, arguments: [String], environment: [String: String]?) {
        self.path = path
        argv = ([path] + arguments).map { strdup($0) } + [nil]
        envp = environment.map { $0.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later),
    /// looked up at run time: Swift's Glibc module does not import it.
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    func free() {
        for pointer in argv + (envp ?? []) { Glibc.free(pointer) }
    }

    /// Makes the pipes and spawns; our ends (-1: not piped).
    func spawn(pipeInput: Bool, pipeErrors: Bool) throws -> (pid: pid_t, input: Int32, output: Int32, errors: Int32) {
        var ours: [Int32] = []
        var theirs: [Int32] = []
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            for fd in theirs { close(fd) }
        }
        /// Gives the child `fd` as a pipe (keeping our end) or /dev/null (-1).
        func wire(_ fd: Int32, piped: Bool) throws {
            guard piped else {
                ours.append(-1)
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
                return
            }
            // pipe2 is not imported; the flag follows at once, on this (the only spawning) thread.
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw ChildProcess.Failure(description: "pipe: errno \(errno)") }
            for end in fds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            let (mine, child) = fd == 0 ? (fds[1], fds[0]) : (fds[0], fds[1])
            theirs.append(child)
            ours.append(mine)
            posix_spawn_file_actions_adddup2(&actions, child, fd)
        }
        do {
            try wire(0, piped: pipeInput)
            try wire(1, piped: true)
            try wire(2, piped: pipeErrors)
        } catch {
            for fd in ours where fd >= 0 { close(fd) }
            throw error
        }
        // Nothing else of ours (a test's raw sockets, a listener) leaks into
        // the child, as none did under Foundation's `Process`.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        var child: pid_t = 0
        let result = if let envp { posix_spawn(&child, path, &actions, nil, argv, envp) } else { posix_spawn(&child, path, &actions, nil, argv, environ) }
        guard result == 0 else {
            for fd in ours where fd >= 0 { close(fd) }
            throw ChildProcess.Failure(description: "posix_spawn \(path): errno \(result)")
        }
        return (child, ours[0], ours[1], ours[2])
    }
}
#endif
