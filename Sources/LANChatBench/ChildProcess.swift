import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Running helper programs (the C baselines, `ip`, child nodes), bounded in
/// time: a program still running at its deadline is killed.
enum ChildProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `path` with `arguments` and returns its standard output.
    @discardableResult
    static func run(_ path: String, _ arguments: [String], timeout: Double = 300) throws -> String {
        let process = try Spawned(path, arguments, pipeInput: false, pipeErrors: true)
        let deadline = Date().addingTimeInterval(timeout)
        // Read while it runs, so a chatty program cannot fill the pipe and stall.
        let out = Box<[UInt8]>([])
        let reader = Thread { out.value = readAll(process.output) }
        reader.start()
        while process.isRunning {
            if Date() > deadline {
                process.kill(SIGTERM)
                process.wait()
                throw Failure(description: "\(path) \(arguments.joined(separator: " ")) timed out after \(timeout) s")
            }
            usleep(2_000)
        }
        let status = process.wait()
        while !out.done { usleep(1_000) }
        let err = readAll(process.errors)
        guard status == 0 else {
            throw Failure(description: "\(path) \(arguments.joined(separator: " ")) exited \(status): \(String(decoding: err, as: UTF8.self).prefix(400))")
        }
        return String(decoding: out.value, as: UTF8.self)
    }

    /// Everything readable from `fd` until end of file.
    private static func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    /// This executable, to start child nodes from (`lanchat-bench node ...`).
    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A value handed from a helper thread; `done` is set with `value`.
final class Box<T: Sendable>: Sendable {
    private let state: Mutex<(value: T, done: Bool)>

    init(_ value: T) { state = Mutex((value, false)) }

    var value: T {
        get { state.withLock { $0.value } }
        set { state.withLock { $0 = (newValue, true) } }
    }

    var done: Bool { state.withLock { $0.done } }
}
