#if canImport(Glibc)
import ChatCore
import Foundation
import Glibc

extension FileTransfers {
    /// Gives `partial` its final name in `directory`: `name`, else
    /// `name (2)`, ... With link(2), which fails rather than replace a file
    /// that exists, so no file is ever overwritten even if one appears
    /// meanwhile. Returns the path, or nil.
    static func moveWithoutOverwriting(_ partial: String, into directory: String, name: FileName) -> String? {
        var taken = Set<String>()
        for _ in 0..<50 {
            guard let free = name.firstFree(exists: { taken.contains($0) || FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent($0)) }) else { return nil }
            let target = (directory as NSString).appendingPathComponent(free)
            if link(partial, target) == 0 {
                unlink(partial)
                return target
            }
            if errno != EEXIST { return nil }
            taken.insert(free)
        }
        return nil
    }
}
#endif
