import ChatCore
import Foundation

/// A link's bounded queue of encoded frames waiting for the socket.
///
/// Frames are whole `Data` values, shared (not copied) when the same frame
/// goes to many links. `enqueue` refuses a frame that would take the queue
/// past `limit`: the caller then cuts the link, because a peer that stops
/// reading must not cost unbounded memory.
struct OutboundQueue: Sendable {
    let limit: Int
    private(set) var byteCount = 0
    private var frames = FIFOQueue<Data>()
    /// Bytes of `frames.first` already written.
    private var written = 0

    init(limit: Int) {
        self.limit = limit
    }

    var isEmpty: Bool { byteCount == 0 }

    /// Adds a frame; false (and nothing queued) if it does not fit.
    mutating func enqueue(_ frame: Data) -> Bool {
        guard !frame.isEmpty else { return true }
        guard byteCount + frame.count <= limit else { return false }
        frames.append(frame)
        byteCount += frame.count
        return true
    }

    /// The unwritten rest of the oldest frame, nil when empty.
    var nextChunk: Data? {
        guard let frame = frames.first else { return nil }
        return frame[(frame.startIndex + written)...]
    }

    /// Removes and returns the oldest frame whole; nil when empty or when
    /// part of it was already written.
    mutating func popFrame() -> Data? {
        guard written == 0, let frame = frames.popFirst() else { return nil }
        byteCount -= frame.count
        return frame
    }

    /// Removes every frame not written at all, oldest first (a partly
    /// written frame stays: its rest belongs to the socket it started on).
    mutating func takeUnwritten() -> [Data] {
        let taken = frames.popSuffix(from: written == 0 ? 0 : 1)
        byteCount -= taken.reduce(0) { $0 + $1.count }
        return taken
    }

    /// Marks `count` bytes of `nextChunk` as written.
    mutating func consume(_ count: Int) {
        guard let frame = frames.first, count <= frame.count - written else {
            preconditionFailure("consumed more than the chunk")
        }
        written += count
        byteCount -= count
        if written == frame.count {
            frames.popFirst()
            written = 0
        }
    }
}
