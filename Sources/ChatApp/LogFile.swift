import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only log file that never grows past `maxBytes`: when the next
/// line would cross it, `lanchat.log` becomes `lanchat.log.1` (replacing
/// the older one) and a new file starts, so the logs take at most twice
/// the cap. Lines are written whole with one `write`, so a crash leaves no
/// half line from a finished call.
///
/// A class around a `Mutex` rather than an actor: the logger's sink is a
/// synchronous call from any thread, and a line must be on disk in order
/// before the call returns.
public final class LogFile: Sendable {
    public let path: String
    public let maxBytes: Int
    /// 1 MiB a file: days of notices, seconds to read through.
    public static let defaultMaxBytes = 1 << 20

    private struct State {
        var descriptor: Int32
        var size: Int
    }
    private let state: Mutex<State>

    /// Why the file cannot be opened.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init(path: String, maxBytes: Int = LogFile.defaultMaxBytes) throws(Failure) {
        self.path = path
        self.maxBytes = max(1, maxBytes)
        let descriptor = Self.openForAppend(path)
        guard descriptor >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
        state = Mutex(State(descriptor: descriptor, size: size))
    }

    deinit { state.withLock { _ = close($0.descriptor) } }

    /// Appends `line` and a newline, rotating first if it would not fit.
    public func append(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        if bytes.count > maxBytes { bytes = Array(bytes.prefix(maxBytes - 1)) + [UInt8(ascii: "\n")] }
        state.withLock { state in
            if state.size > 0, state.size + bytes.count > maxBytes { rotate(&state) }
            guard state.descriptor >= 0 else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(state.descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // a full disk loses log lines, never the client
                }
                offset += written
            }
            state.size += offset
        }
    }

    /// The older file's path.
    public var previousPath: String { path + ".1" }

    private func rotate(_ state: inout State) {
        close(state.descriptor)
        _ = rename(path, previousPath)
        state.descriptor = Self.openForAppend(path)
        state.size = 0
    }

    private static func openForAppend(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    }
}

extension DataDirectory {
    /// The full-screen client's log (`LogFile`; the older half in `.1`).
    public var logPath: String { path + "/lanchat.log" }
}
