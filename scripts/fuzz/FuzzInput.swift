/// Turns a fuzzer's input into the choices a target needs (a limit, chunk
/// sizes) and the bytes it feeds, deterministically, so a saved crash input
/// replays the same run.
struct FuzzInput {
    private var state: UInt64

    /// Seeds the generator from up to the first eight bytes of `bytes`.
    init(seed bytes: ArraySlice<UInt8>) {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for byte in bytes.prefix(8) { seed = (seed ^ UInt64(byte)) &* 0x1000_0000_01B3 }
        state = seed
    }

    /// splitmix64: cheap, and every seed gives a different stream.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`.
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}

/// Stops the run with a message libFuzzer reports as a crash.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant broken: \(message())") }
}
