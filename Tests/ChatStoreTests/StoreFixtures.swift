import TestSupport
import ChatCore
import Foundation

/// Shared helpers for the store tests: a private temp directory per test
/// (they run in parallel), and messages with chosen times and ids.
enum Fixtures {
    static let me = NodeNumber(rawValue: 1)!
    static let bob = NodeNumber(rawValue: 2)!
    static let carol = NodeNumber(rawValue: 3)!
    /// 2024-11-21T00:00:00Z.
    static let base: Int64 = 1_732_147_200_000

    /// Runs `body` with a fresh directory that is removed afterwards.
    @discardableResult
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lanchat-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// A message with an id made from `idBits` (so tests choose the order
    /// of ids within one millisecond).
    static func message(
        at millis: Int64, idBits: UInt64, room: RoomID = .publicRoom, from sender: NodeNumber = bob,
        text: String? = nil
    ) -> Message {
        Message(
            id: MessageID(millis: millis, random: (idBits & 0xFFF, idBits)), room: room,
            senderNumber: sender, senderNickname: sender == me ? "me" : "peer\(sender.rawValue)",
            senderStage: sender == carol ? "web" : nil, content: text ?? "message \(idBits) at \(millis)",
            timestamp: millis)
    }

    /// `count` messages one second apart, numbered from 0.
    static func numbered(_ count: Int, room: RoomID = .publicRoom, from sender: NodeNumber = bob) -> [Message] {
        (0..<count).map { message(at: base + Int64($0) * 1000, idBits: UInt64($0), room: room, from: sender, text: "m\($0)") }
    }

    /// The seed's diary: `perDay` entries on each of `days` days from
    /// `firstDay` (midnight in `calendar`'s time zone), at pseudo-random
    /// times between 08:00 and 22:00; some share a millisecond.
    static func diary(days: Int, perDay: Int, from firstDay: Date, calendar: Calendar) -> [Message] {
        var rng = SeededRandom(seed: 42)
        var messages: [Message] = []
        messages.reserveCapacity(days * perDay)
        for day in 0..<days {
            let start = calendar.date(byAdding: .day, value: day, to: firstDay)!
            let startMillis = Timestamp.millis(from: start)
            var last: Int64 = 0
            for entry in 0..<perDay {
                // Every third entry reuses the previous timestamp.
                let offset = entry % 3 == 2 && last != 0 ? last : Int64(8 * 3_600_000) + Int64(rng.next() % (14 * 3_600_000))
                last = offset
                messages.append(message(at: startMillis + offset, idBits: rng.next(), room: .publicRoom,
                                        from: entry % 2 == 0 ? bob : me))
            }
        }
        return messages
    }
}
