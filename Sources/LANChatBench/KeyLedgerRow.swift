import ChatCore
import ChatNode
import ChatStore
import Foundation

/// What fresh identities cost the store: N keys seen once each (a flood of
/// fresh-key handshakes), planned by `KeyLedger` as the node plans them and
/// written to a file with `synchronous=FULL`, in the node's batches of
/// `KeyLedger.writeBatch` against one commit per key (how the node wrote
/// them before). The time is what the node's one store drainer waits.
enum KeyLedgerRow {
    static func run(quick: Bool) async throws -> BenchRow {
        let count = quick ? 300 : 1_000
        let directory = NSTemporaryDirectory() + "lanchat-bench-ledger-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<count).map { _ in Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString() }

        func write(batch: Int, file: String) async throws -> (seconds: Double, commits: Int) {
            let store = try ChatStore(path: directory + "/" + file, localNumber: NodeNumber(rawValue: 1)!)
            var ledger = KeyLedger()
            var dirtyKeys = Set<String>(), dirtyPins = Set<String>()
            var commits = 0
            let start = ContinuousClock.now
            for (index, key) in keys.enumerated() {
                let changes = ledger.planSighting(key: key, nickname: "fresh\(index)", now: 1_700_000_000_000 + Int64(index))
                ledger.apply(changes)
                let touched = changes.touched
                dirtyKeys.formUnion(touched.keys)
                dirtyPins.formUnion(touched.pins)
                if dirtyKeys.count >= batch || index == keys.count - 1 {
                    try await store.commitKeys(ledger.rows(keys: dirtyKeys, pins: dirtyPins))
                    commits += 1
                    dirtyKeys = []
                    dirtyPins = []
                }
            }
            let seconds = Measure.seconds(ContinuousClock.now - start)
            await store.close()
            return (seconds, commits)
        }
        let single = try await write(batch: 1, file: "single.sqlite")
        let batched = try await write(batch: KeyLedger.writeBatch, file: "batched.sqlite")
        let perKey = batched.seconds / Double(count) * 1e6, perKeySingle = single.seconds / Double(count) * 1e6
        return BenchRow(
            key: "ledger",
            figure: "\(count) fresh-key sightings written to the key ledger on disk (synchronous=FULL), in the node's batches of \(KeyLedger.writeBatch)",
            value: "\(batched.commits) commits, \(Measure.ms(batched.seconds * 1e6)) (\(String(format: "%.1f", perKey)) µs a key)",
            baseline: "one commit a key (before): \(single.commits) commits, \(Measure.ms(single.seconds * 1e6)) (\(String(format: "%.1f", perKeySingle)) µs a key)",
            target: "-", met: nil,
            numbers: ["keys": Double(count), "commits": Double(batched.commits), "seconds": batched.seconds,
                      "baseline_commits": Double(single.commits), "baseline_seconds": single.seconds])
    }
}
