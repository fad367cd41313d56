import ChatCore
import Foundation

/// Issue 31's figure: the UTS #39 look-alike check of a nickname
/// (`LookAlike.key`: NFKC + case folding, then the skeleton) under 5 µs,
/// beside what it replaced alone (`NodeName.clashKey`: NFKC + case folding)
/// in the same run. The names mix what peers use: plain ASCII, Latin with
/// accents, Cyrillic look-alikes, fullwidth, Hangul, emoji. The tables are
/// built before timing (once per process, at the first look-up).
enum SkeletonRow {
    static let names = ["alice", "Bob_42", "carol-ios", "аlice", "ｂｏｂ", "Renée", "Zoë", "김철수", "dave 👩‍💻", "ΑΝΝΑ",
                        "pаypal", "l0g1n", "Mallory", "ＴＲＥＮＴ", "오늘은맑음", "σίσυφος"]

    static func run(quick: Bool) -> BenchRow {
        let rounds = quick ? 5_000 : 50_000
        _ = LookAlike.key("warm up the tables")
        let skeleton = perName(rounds) { LookAlike.key($0) }
        let clash = perName(rounds) { NodeName.clashKey($0) }
        let mixed = perName(rounds) { LookAlike.isMixedScript($0) ? "m" : "" }
        let worst = skeleton.values.max() ?? .nan
        let mean = skeleton.values.reduce(0, +) / Double(max(1, skeleton.count))
        let slowest = skeleton.max { $0.value < $1.value }?.key ?? "?"
        func us(_ value: Double) -> String { String(format: "%.2f µs", value) }
        return BenchRow(
            key: "skeleton",
            figure: "UTS #39 look-alike key of a nickname (NFKC, case fold, skeleton): mean / slowest of \(names.count) names",
            value: "\(us(mean)) / \(us(worst))",
            baseline: "clash key alone (NFKC, case fold, NFKC): \(us(clash.values.reduce(0, +) / Double(clash.count))); mixed-script check: "
                + us(mixed.values.reduce(0, +) / Double(mixed.count)),
            target: "< 5 µs", met: worst < 5,
            numbers: ["skeleton_mean_us": mean, "skeleton_worst_us": worst,
                      "clash_key_mean_us": clash.values.reduce(0, +) / Double(clash.count),
                      "mixed_script_mean_us": mixed.values.reduce(0, +) / Double(mixed.count)],
            note: "slowest name: \(slowest.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "U+%04X", $0.value) }.joined(separator: " "))")
    }

    /// Microseconds per call of `body` for each name: the best of nine
    /// passes, so a pass the scheduler preempted (a busy machine) does not
    /// stand for the code.
    private static func perName(_ rounds: Int, _ body: (String) -> String) -> [String: Double] {
        var result: [String: Double] = [:]
        var sink = 0
        for name in names {
            var best = Double.infinity
            for _ in 0..<9 {
                let started = ContinuousClock.now
                for _ in 0..<(rounds / names.count) { sink &+= body(name).utf8.count }
                best = min(best, Measure.micros(ContinuousClock.now - started) / Double(rounds / names.count))
            }
            result[name] = best
        }
        if sink == 42 { print("") }   // keeps the calls from being optimised away
        return result
    }
}
