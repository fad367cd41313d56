#if canImport(Glibc)
import Glibc

extension ChildProcess {
    /// Reads `fd` (a child's output or errors) to its end, handing each
    /// line, without its line end, to `handle` with the instant the read
    /// that completed it returned; a last line without an end too. Blocks:
    /// from a thread of its own, which holds the `ChildProcess` meanwhile.
    public static func readLines(from fd: Int32, _ handle: (ArraySlice<UInt8>, ContinuousClock.Instant) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var partial: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            let now = ContinuousClock.now
            var start = 0
            for index in 0..<count where buffer[index] == 0x0A {
                if partial.isEmpty {
                    handle(buffer[start..<index], now)
                } else {
                    partial.append(contentsOf: buffer[start..<index])
                    handle(partial[...], now)
                    partial.removeAll(keepingCapacity: true)
                }
                start = index + 1
            }
            if start < count { partial.append(contentsOf: buffer[start..<count]) }
        }
        if !partial.isEmpty { handle(partial[...], .now) }
    }

    /// Everything readable from `fd` until its end.
    public static func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }
}
#endif
