import Foundation

/// A directory of the test's own under the temporary directory, removed
/// when the last reference goes.
public final class ScratchDirectory {
    public let path = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-scratch-\(UUID())").path

    public init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` to `name` in the directory; returns its full path.
    public func file(_ name: String, bytes: [UInt8]) throws -> String {
        let full = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    public func contents(_ path: String) -> [UInt8]? { (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) }

    public func listing(_ directory: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }
}
