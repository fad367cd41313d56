#if canImport(Glibc)
import Glibc
#endif

/// Gives a file store's WAL its working size at open, written with zeros.
///
/// SQLite appends each commit's frames to the WAL until a checkpoint lets
/// it start over from the top; after that the file keeps its size and a
/// commit overwrites blocks it already has. While the file still grows, an
/// fsync also commits the file system's journal (the new size and blocks):
/// on the machine docs/BENCHMARKS.md measures, the first ~70 DMs after every start
/// took 2-3.5 ms to their acknowledgement instead of 1.2 ms, and were the
/// whole of the round trip's p99. Writing the zeros once at open makes the
/// first cycle like every later one.
///
/// Safe because SQLite reads a WAL only up to its last valid frame: a
/// frame of zeros fails the salt and checksum check, exactly as the stale
/// frames of an earlier cycle do after SQLite starts the file over. Only
/// bytes past the current end are written, never a frame SQLite wrote.
/// The caller holds the database's write lock meanwhile (`BEGIN
/// IMMEDIATE`), so no other connection appends frames or restarts the
/// WAL between the size read and the writes. Best effort: any failure
/// puts the file back at its size, and a disk short of space is not
/// filled (the node must keep storing messages).
enum WALPreallocation {
    /// WAL frames to make room for: a checkpoint starts at
    /// `WALCheckpointer.pagesBeforeCheckpoint`, and commits go on while it runs.
    static let frames = Int(WALCheckpointer.pagesBeforeCheckpoint) * 5 / 4
    /// Free space below which nothing is written (a multiple of the size).
    static let freeSpaceFactor = 16

    /// Bytes the WAL of a database with `pageSize` pages is given.
    static func size(pageSize: Int) -> Int {
        32 + frames * (24 + pageSize)
    }

    enum Outcome: Equatable, Sendable {
        /// The file already had the size (or more).
        case large
        /// Grown from this many bytes.
        case grown(from: Int)
        /// Left as it was, and why.
        case skipped(String)
    }

    /// Extends `walPath` (the `-wal` file SQLite has open) with zeros to `size(pageSize:)` and syncs it.
    static func extend(walPath: String, pageSize: Int) -> Outcome {
        let target = size(pageSize: pageSize)
        let fd = open(walPath, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return .skipped("cannot open \(walPath): errno \(errno)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .skipped("cannot stat \(walPath): errno \(errno)") }
        // An empty WAL (no header yet) may grow too: a header of zeros is
        // no WAL to SQLite, which writes its header with the first frame.
        let current = Int(status.st_size)
        guard current < target else { return .large }
        var disk = statvfs()
        guard fstatvfs(fd, &disk) == 0 else { return .skipped("cannot stat the file system: errno \(errno)") }
        let free = Int(disk.f_bavail) &* Int(disk.f_frsize)
        guard free / freeSpaceFactor >= target else { return .skipped("\(free) bytes free") }
        let zeros = [UInt8](repeating: 0, count: 64 * 1024)
        var offset = current
        while offset < target {
            let count = min(zeros.count, target - offset)
            let written = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
            guard written > 0 else {
                let error = errno
                _ = ftruncate(fd, off_t(current))
                return .skipped("write failed: errno \(error)")
            }
            offset += written
        }
        guard fdatasync(fd) == 0 else {
            let error = errno
            _ = ftruncate(fd, off_t(current))
            return .skipped("fdatasync failed: errno \(error)")
        }
        return .grown(from: current)
    }
}
