#if canImport(Glibc)
import Glibc

extension DescriptorBudget {
    /// The process's soft RLIMIT_NOFILE, nil if unknown or unlimited.
    static func processLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }
}
#endif
