import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the file rows send: a sparse file of 1 GiB (256 MiB with --quick),
/// so reading it costs no disk, in a new temporary directory that also
/// takes what the row receives. `remove()` deletes the directory.
struct SparseSourceFile {
    let size: Int64
    let directory: String
    var path: String { directory + "/source.bin" }

    init(label: String, quick: Bool) throws {
        size = quick ? 256 << 20 : 1 << 30
        directory = NSTemporaryDirectory() + "lanchat-bench-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let sized = fd >= 0 && ftruncate(fd, off_t(size)) == 0
        if fd >= 0 { close(fd) }
        guard sized else {
            remove()
            throw BenchFailure("cannot make a \(size)-byte sparse file")
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
