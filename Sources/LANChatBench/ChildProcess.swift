import Foundation
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Read while it runs, so a chatty program cannot fill the pipe and stall.
        let out = Box<Data>(Data())
        let reader = Thread { out.value = output.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                throw Failure(description: "\(path) \(arguments.joined(separator: " ")) timed out after \(timeout) s")
            }
            usleep(2_000)
        }
        while !out.done { usleep(1_000) }
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: err, as: UTF8.self).prefix(400))")
        }
        return String(decoding: out.value, as: UTF8.self)
    }

    /// This executable, to start child nodes from (`lanchat-bench node ...`).
    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// A value handed from a helper thread; `done` is set after `value`.
final class Box<T>: @unchecked Sendable {
    // @unchecked: written once by one thread before `done` is set, read by
    // another only after it sees `done` (the lock orders the two).
    private let lock = NSLock()
    private var stored: T
    private var finished = false

    init(_ value: T) { stored = value }

    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue; finished = true } }
    }

    var done: Bool { lock.withLock { finished } }
}
