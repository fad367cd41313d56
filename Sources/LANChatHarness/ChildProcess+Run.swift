#if canImport(Glibc)
import Foundation
import Glibc
import Synchronization

extension ChildProcess {
    /// Runs `path` with `arguments` to its end and returns its standard
    /// output; a program still running after `timeout` seconds is killed,
    /// one that exits other than 0 throws with its error output.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String], timeout: Double = 300) throws -> String {
        let process = try ChildProcess(path, arguments, pipeInput: false, pipeErrors: true)
        let command = "\(path) \(arguments.joined(separator: " "))"
        let deadline = Date().addingTimeInterval(timeout)
        // Read while it runs, so a chatty program cannot fill the pipe and stall.
        let out = Mutex<[UInt8]?>(nil)
        Thread { [process] in
            let bytes = readAll(process.output)
            out.withLock { $0 = bytes }
        }.start()
        while process.isRunning {
            if Date() > deadline {
                process.kill(SIGTERM)
                process.wait()
                throw Failure(description: "\(command) timed out after \(timeout) s")
            }
            usleep(2_000)
        }
        let status = process.wait()
        while out.withLock({ $0 == nil }) { usleep(1_000) }
        let err = readAll(process.errors)
        guard status == 0 else {
            throw Failure(description: "\(command) exited \(status): \(String(decoding: err, as: UTF8.self).prefix(400))")
        }
        return String(decoding: out.withLock { $0 ?? [] }, as: UTF8.self)
    }

    /// This executable, to start a child of the same program
    /// (`lanchat-bench node ...`).
    public static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
#endif
