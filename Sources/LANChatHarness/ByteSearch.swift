#if canImport(Glibc)
import Glibc

/// A plain byte search over buffer pointers, for harness code that scans
/// every line or record a node writes: the generic `firstRange(of:)` cost
/// the bench's readers and draining peers more CPU than the nodes they
/// measure (they share the same cores).
public enum ByteSearch {
    public static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                guard let first = pin.first else { return true }
                guard pin.count <= hay.count, let base = hay.baseAddress else { return false }
                var index = 0
                let last = hay.count - pin.count
                while index <= last {
                    guard let found = memchr(base + index, Int32(first), last - index + 1) else { return false }
                    index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + index, pin.baseAddress!, pin.count) == 0 { return true }
                    index += 1
                }
                return false
            }
        }
    }

    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        contains(haystack[...], needle)
    }
}
#endif
