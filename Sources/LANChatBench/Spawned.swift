import Glibc
import Synchronization

/// A child process started with posix_spawn(3) rather than Foundation's
/// `Process`: `Process.run()` on Linux (Swift 6.3.1) now and then crashes
/// reading /proc/self/fd past a buffer (swift-corelibs-foundation PR
/// #5472), and the discovery row starts a few hundred processes (nodes and
/// `ip`) with many pipes open; it crashed 2 runs in 14.
final class Spawned: Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let pid: pid_t
    /// Our ends of its standard input, output and error (-1: not piped).
    let output: Int32
    let errors: Int32
    private let input: Mutex<Int32>
    /// Its wait status, once reaped.
    private let status = Mutex<Int32?>(nil)

    /// `pipeInput` / `pipeErrors`: a pipe, or /dev/null. Output is always piped.
    init(_ path: String, _ arguments: [String], pipeInput: Bool, pipeErrors: Bool) throws {
        // A write to a child that has exited must fail, not kill the benchmark.
        signal(SIGPIPE, SIG_IGN)
        var ours: [Int32] = []
        var theirs: [Int32] = []
        func makePipe() throws -> (read: Int32, write: Int32) {
            // pipe2 is not imported; the benchmark spawns from one task at a time.
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
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
            let pipe = try makePipe()
            let (mine, child) = fd == 0 ? (pipe.write, pipe.read) : (pipe.read, pipe.write)
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
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, nil, argv, environ)
        guard result == 0 else {
            for fd in ours where fd >= 0 { close(fd) }
            throw Failure(description: "posix_spawn \(path): errno \(result)")
        }
        pid = child
        input = Mutex(ours[0])
        output = ours[1]
        errors = ours[2]
    }

    /// Whether it has not exited yet (reaps it when it has).
    var isRunning: Bool {
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
    func wait() -> Int32 {
        var raw: Int32 = 0
        let known = status.withLock { $0 }
        if let known { raw = known } else {
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            status.withLock { $0 = raw }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand: the macros are not imported.
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

    /// Writes all of `bytes` to its standard input; false if it is closed.
    func write(_ bytes: [UInt8]) -> Bool {
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
    func closeInput() {
        input.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    deinit {
        closeInput()
        for fd in [output, errors] where fd >= 0 { close(fd) }
    }
}
