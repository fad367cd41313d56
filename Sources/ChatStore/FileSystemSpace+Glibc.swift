#if canImport(Glibc)
import Glibc

/// Size and free space of the file system holding a path (`statvfs`).
enum FileSystemSpace {
    /// Bytes in all and bytes an unprivileged writer may still use, or nil
    /// if the call fails.
    static func of(_ path: String) -> (total: Int, available: Int)? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let unit = Int(info.f_frsize)
        return (Int(info.f_blocks) &* unit, Int(info.f_bavail) &* unit)
    }
}
#endif
