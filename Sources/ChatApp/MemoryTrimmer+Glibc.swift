#if canImport(Glibc)
import Glibc

extension MemoryTrimmer {
    /// glibc's `malloc_trim(0)`: returns free pages of every arena to the
    /// system. Looked up at run time (Swift's Glibc module leaves out
    /// malloc.h, and another C library may not have it); false when absent.
    @discardableResult
    static func releaseFreeMemory() -> Bool {
        // RTLD_DEFAULT (a null handle on glibc): the symbol wherever it is loaded.
        guard let symbol = dlsym(nil, "malloc_trim") else { return false }
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        return true
    }
}
#endif
