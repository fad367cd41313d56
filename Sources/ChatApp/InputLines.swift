import Dispatch
import Foundation

/// Lines a person or a script sends a front end, read on a thread of their
/// own (reads block) and handed over at most `queued` ahead of the reader's
/// consumer: a script that pipes a million commands waits for the node
/// instead of filling memory with them, and nothing it sent is dropped.
public struct InputLines: AsyncSequence, Sendable {
    public typealias Element = EnteredLine

    /// The longest line kept: a JSON `send` of the longest text a message
    /// may have (8 KiB of UTF-8), every byte escaped as `\u00XX`, fits.
    public static let maxLineBytes = 64 * 1_024
    /// Lines read but not yet taken by the front end.
    public static let queued = 64

    private let stream: AsyncStream<EnteredLine>
    /// Free places in the hand-over; nil when the source paces itself (a
    /// person at a terminal).
    private let slots: DispatchSemaphore?

    /// Lines from a source that needs no bound (typed at a terminal).
    init(unbounded stream: AsyncStream<EnteredLine>) {
        self.stream = stream
        slots = nil
    }

    /// Lines of the bytes `read` returns on a thread named `name`: it fills
    /// the buffer it is given and returns the count, 0 at end of input, or
    /// -1 on an error (which ends the input too).
    init(name: String, maxLineBytes: Int = Self.maxLineBytes, queued: Int = Self.queued,
         read: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int) {
        precondition(queued > 0)
        let (stream, continuation) = AsyncStream.makeStream(of: EnteredLine.self)
        // Created empty and then given its places: libdispatch kills a
        // process that frees a semaphore below its initial value, which a
        // consumer that stops early (quit) would leave.
        let slots = DispatchSemaphore(value: 0)
        for _ in 0..<queued { slots.signal() }
        // A consumer that stops (quit) releases a reader waiting for a place.
        continuation.onTermination = { _ in slots.signal() }
        let thread = Thread {
            var splitter = InputLineSplitter(maxLineBytes: maxLineBytes)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1_024, alignment: 1)
            defer { buffer.deallocate() }
            func hand(_ line: EnteredLine) -> Bool {
                slots.wait()
                if case .terminated = continuation.yield(line) { return false }
                return true
            }
            reading: while true {
                let count = read(buffer)
                guard count > 0 else {
                    if let last = splitter.finish() { _ = hand(last) }
                    break
                }
                for line in splitter.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count])) where !hand(line) {
                    break reading
                }
            }
            continuation.finish()
        }
        thread.name = name
        thread.start()
        self.stream = stream
        self.slots = slots
    }

    /// What a front end says of a line it skipped.
    public static func refusal(bytes: Int, limit: Int) -> String {
        "line too long (\(bytes) bytes, the limit is \(limit)): skipped, nothing sent"
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), slots: slots)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<EnteredLine>.AsyncIterator
        let slots: DispatchSemaphore?

        public mutating func next() async -> EnteredLine? {
            guard let line = await base.next() else { return nil }
            slots?.signal()
            return line
        }
    }
}
