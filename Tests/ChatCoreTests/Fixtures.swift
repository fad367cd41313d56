import ChatCore
import TestSupport

/// The ChatCore tests' own fixtures, beside the shared ones (nodes, a fixed
/// time, frame builders) in TestSupport's `Fixtures`.
extension Fixtures {
    static func message(
        _ sequence: UInt64, from sender: NodeIdentity = bob, at timestamp: Int64 = t0, content: String? = nil
    ) -> Message {
        Message(
            id: id(sequence, millis: timestamp), room: .publicRoom, senderNumber: sender.number,
            senderNickname: sender.nickname, content: content ?? "m\(sequence)", timestamp: timestamp)
    }
}

/// Returns the given values in turn, round and round, to steer
/// `MessageIDGenerator` into exact random bits.
struct ScriptedRNG: RandomNumberGenerator {
    private var values: [UInt64]
    private var index = 0

    init(_ values: [UInt64]) {
        precondition(!values.isEmpty)
        self.values = values
    }

    mutating func next() -> UInt64 {
        defer { index = (index + 1) % values.count }
        return values[index]
    }
}
