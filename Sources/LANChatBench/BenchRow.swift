import Foundation

/// One line of the table: a figure, its same-run baseline, and the target.
struct BenchRow: Sendable {
    /// Short key for `--only` and the JSON file.
    var key: String
    var figure: String
    var value: String
    var baseline: String
    var target: String
    /// nil: no target to meet (or the row could not run).
    var met: Bool?
    /// The raw numbers behind the row, for the JSON file.
    var numbers: [String: Double] = [:]
    var note: String = ""

    var metText: String {
        switch met {
        case true?: "yes"
        case false?: "NO"
        case nil: "-"
        }
    }
}

/// Prints rows as a Markdown table (what docs/BENCHMARKS.md shows) and writes JSON.
enum BenchReport {
    static func table(_ rows: [BenchRow]) -> String {
        var lines = ["| figure | value | baseline (same run) | target | met? |", "|---|---|---|---|---|"]
        for row in rows {
            lines.append("| \(row.figure) | \(row.value) | \(row.baseline) | \(row.target) | \(row.metText) |")
        }
        let notes = rows.filter { !$0.note.isEmpty }
        if !notes.isEmpty {
            lines.append("")
            for row in notes { lines.append("- \(row.key): \(row.note)") }
        }
        return lines.joined(separator: "\n")
    }

    static func json(_ rows: [BenchRow], machine: [String: String], quick: Bool) -> Data {
        let object: [String: Any] = [
            "quick": quick,
            "machine": machine,
            "rows": rows.map { row -> [String: Any] in
                var entry: [String: Any] = [
                    "key": row.key, "figure": row.figure, "value": row.value, "baseline": row.baseline,
                    "target": row.target, "numbers": row.numbers,
                ]
                entry["met"] = row.met ?? NSNull()
                if !row.note.isEmpty { entry["note"] = row.note }
                return entry
            },
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    }
}

/// Formatting and statistics shared by the rows.
enum Measure {
    static func now() -> ContinuousClock.Instant { ContinuousClock.now }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func micros(_ duration: Duration) -> Double { seconds(duration) * 1e6 }

    /// The nearest-rank percentile (`p` in 0...1) of unsorted samples.
    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        return sorted[Int((Double(sorted.count - 1) * p).rounded(.down))]
    }

    static func ms(_ micros: Double) -> String { String(format: "%.3f ms", micros / 1000) }

    static func rate(_ perSecond: Double) -> String {
        perSecond >= 10_000 ? String(format: "%.1fk/s", perSecond / 1000) : String(format: "%.0f/s", perSecond)
    }

    static func mib(_ kib: Double) -> String { String(format: "%.1f MB", kib / 1024) }
}
