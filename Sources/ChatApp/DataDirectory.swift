import ChatCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A node's data directory: `history.sqlite`, the identity key that makes a
/// restarted node the same node (`identity.key`, see
/// DataDirectory+Identity.swift), and a lock so two processes never share
/// one directory.
public final class DataDirectory: Sendable {
    public let path: String
    private let lockDescriptor: Int32

    /// Why a data directory cannot be used.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The default for `nickname`: `$XDG_DATA_HOME/lanchat/<nickname>`, or
    /// `~/.local/share/lanchat/<nickname>`.
    public static func defaultPath(nickname: String, environment: [String: String]) -> String {
        let base: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        // A nickname may hold characters a file name cannot: keep it readable but safe.
        let safe = String(nickname.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar == "\0" || scalar == "." && nickname.allSatisfy({ $0 == "." }) ? "_" : Character(scalar)
        })
        return "\(base)/lanchat/\(safe)"
    }

    /// Creates the directory if needed (mode 0700: the history, the log
    /// and the key inside are nobody else's business; SQLite creates its
    /// files 0644) and takes its lock. An existing directory keeps the
    /// mode its owner gave it.
    public init(path: String) throws(Failure) {
        self.path = path
        let existed = FileManager.default.fileExists(atPath: path)
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create data directory \(path): \(error.localizedDescription)")
        }
        if !existed, chmod(path, 0o700) != 0 {
            throw Failure(description: "cannot make data directory \(path) private: \(String(cString: strerror(errno)))")
        }
        let descriptor = open(path + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path)/lock: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw Failure(description: "data directory \(path) is in use by another lanchat; give this one its own --data-dir")
        }
        lockDescriptor = descriptor
    }

    deinit { close(lockDescriptor) }

    public var historyPath: String { path + "/history.sqlite" }
}
