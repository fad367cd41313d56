import ChatCore
import Foundation
import ChatApp

/// What a `--json` client pays to write a message event, on one core:
/// `JSONEventEncoder.line` (the session's encoder) beside
/// `JSONSerialization` writing the same objects with the same options.
/// Not a target of its own; a flood's events reach a `--json` reader only
/// as fast as it encodes them.
enum JSONEventsRow {
    static func run(quick: Bool) -> BenchRow {
        let count = quick ? 10_000 : 50_000
        let millis = Timestamp.millis(from: Date())
        let me = NodeNumber(rawValue: 4_711_000_999)!
        let objects = (0..<count).map { index in
            let message = Message(id: MessageID(millis: millis, random: (UInt64(index), UInt64(index) &* 31)), room: .publicRoom,
                                  senderNumber: NodeNumber(rawValue: 4_711_000_000 + UInt64(index % 20))!, senderNickname: "peer\(index % 20)",
                                  content: NetworkRows.text(index), timestamp: millis + Int64(index))
            return JSONEventEncoder.message(message, localNumber: me, name: message.senderNickname)
        }
        var bytes = 0, baselineBytes = 0
        let start = ContinuousClock.now
        for object in objects { bytes += JSONEventEncoder.line(object).utf8.count }
        let rate = Double(count) / Measure.seconds(ContinuousClock.now - start)
        let baselineStart = ContinuousClock.now
        for object in objects {
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            baselineBytes += data?.count ?? 0
        }
        let baselineRate = Double(count) / Measure.seconds(ContinuousClock.now - baselineStart)
        var row = BenchRow(
            key: "json", figure: "--json message events encoded on one core",
            value: "\(Measure.rate(rate)) (\(String(format: "%.1f", 1e6 / rate)) µs an event)",
            baseline: "JSONSerialization, same objects and options: \(Measure.rate(baselineRate)) (\(String(format: "%.1f", 1e6 / baselineRate)) µs)",
            target: "-", met: nil,
            numbers: ["per_second": rate, "baseline_per_second": baselineRate, "bytes": Double(bytes), "baseline_bytes": Double(baselineBytes)])
        if bytes != baselineBytes { row.note = "the lines differ in length from JSONSerialization's: \(bytes) against \(baselineBytes) bytes" }
        return row
    }
}
