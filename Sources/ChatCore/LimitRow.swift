/// One limit as docs/OPERATIONS.md's limits tables show it: its name in code, its
/// value, the unit and what it bounds. Each layer lists its limits as
/// `documentedRows` (`ChatLimits`, `NodeLimits`, `PeerLimits`,
/// `P2PConfiguration`), and a test checks that
/// docs/OPERATIONS.md's table holds exactly those rows, so the two cannot drift.
public struct LimitRow: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var value: String
    public var unit: String
    public var meaning: String

    public init(_ name: String, _ value: some CustomStringConvertible, _ unit: String, _ meaning: String) {
        self.name = name
        self.value = value.description
        self.unit = unit
        self.meaning = meaning
    }

    /// A time limit: whole seconds as seconds, anything finer in milliseconds.
    public init(_ name: String, _ duration: Duration, _ meaning: String) {
        let millis = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if millis % 1000 == 0 {
            self.init(name, millis / 1000, "seconds", meaning)
        } else {
            self.init(name, millis, "milliseconds", meaning)
        }
    }

    /// The row as docs/OPERATIONS.md writes it: `| `name` | value | unit | meaning |`.
    public var markdown: String { "| `\(name)` | \(value) | \(unit) | \(meaning) |" }

    public var description: String { markdown }
}
