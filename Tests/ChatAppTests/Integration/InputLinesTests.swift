import ChatCore
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import ChatApp

/// Standard input's lines: each bounded in length, and read no further
/// ahead of the front end than a few lines, however fast a script writes.
@Suite(.realTime) struct InputLinesTests {
    static func split(_ chunks: [String], max: Int = 8) -> (lines: [EnteredLine], held: [Int]) {
        var splitter = InputLineSplitter(maxLineBytes: max)
        var lines: [EnteredLine] = []
        var held: [Int] = []
        for chunk in chunks {
            lines += Array(chunk.utf8).withUnsafeBytes { splitter.feed($0) }
            held.append(splitter.heldBytes)
        }
        if let last = splitter.finish() { lines.append(last) }
        return (lines, held)
    }

    @Test func linesEndAtNewlinesAcrossReads() {
        #expect(Self.split(["ab", "c\nde", "f\n\ng"]).lines == [.line("abc"), .line("def"), .line(""), .line("g")])
    }

    @Test func oneCarriageReturnBeforeTheNewlineIsDropped() {
        #expect(Self.split(["a\r\nb\r", "\n", "12345678\r\n"]).lines == [.line("a"), .line("b"), .line("12345678")])
        // At the end of input a last "\r" stays, as with readLine.
        #expect(Self.split(["abc\r"]).lines == [.line("abc\r")])
    }

    @Test func aLineOverTheLimitIsSkippedToItsEndAndReportedByLength() {
        let result = Self.split(["123456789\nok\n", "0123", "45678", "9abc\r\n", "fine\n"])
        #expect(result.lines == [.tooLong(bytes: 9), .line("ok"), .tooLong(bytes: 13), .line("fine")])
    }

    @Test func inputThatNeverEndsALineHoldsNoMoreThanTheLimit() {
        let (lines, held) = Self.split(Array(repeating: "0123456789", count: 1_000))
        #expect(held.allSatisfy { $0 <= 9 }, "held \(held.max() ?? 0) bytes")
        #expect(lines == [.tooLong(bytes: 10_000)])
    }

    @Test func invalidUTF8IsReplacedNotRefused() {
        var splitter = InputLineSplitter(maxLineBytes: 16)
        let lines = [UInt8]([0x61, 0xFF, 0x62, 0x0A]).withUnsafeBytes { splitter.feed($0) }
        #expect(lines == [.line("a\u{FFFD}b")])
    }

    @Test func theLongestSendACommandCanCarryFits() throws {
        // 8 KiB of text, every byte a control character JSON escapes as \u00XX.
        let text = String(repeating: "\u{01}", count: ChatLimits.maxMessageBytes)
        let data = try JSONSerialization.data(withJSONObject: ["cmd": "send", "text": text, "id": "r1"])
        #expect(data.count > 6 * ChatLimits.maxMessageBytes)
        #expect(data.count <= InputLines.maxLineBytes)
    }

    /// A source of one line per read, counting the reads.
    final class Source: Sendable {
        let total: Int
        let reads = Atomic<Int>(0)
        init(total: Int) { self.total = total }

        func read(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
            let index = reads.add(1, ordering: .sequentiallyConsistent).newValue
            guard index <= total else { return 0 }
            let line = Array("line \(index)\n".utf8)
            line.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return line.count
        }
    }

    @Test func everyLineArrivesInOrder() async {
        let source = Source(total: 2_000)
        var seen: [String] = []
        for await input in InputLines(name: "test-input", queued: 3, read: source.read) {
            guard case .line(let line) = input else { Issue.record("unexpected \(input)"); return }
            seen.append(line)
        }
        #expect(seen == (1...2_000).map { "line \($0)" })
    }

    @Test func theReaderWaitsForTheFrontEnd() async {
        // With 3 places the reader reads 3 lines, then a 4th it cannot hand
        // over, and stops there until one is taken.
        let source = Source(total: 1_000)
        var iterator = InputLines(name: "test-input", queued: 3, read: source.read).makeAsyncIterator()
        #expect(await waitUntil { source.reads.load(ordering: .sequentiallyConsistent) >= 4 })
        #expect(await iterator.next() == .line("line 1"))
        #expect(await waitUntil { source.reads.load(ordering: .sequentiallyConsistent) >= 5 })
        #expect(await iterator.next() == .line("line 2"))
        #expect(await waitUntil { source.reads.load(ordering: .sequentiallyConsistent) >= 6 })
        // Unbounded, it would have read all 1,000 by now.
        #expect(source.reads.load(ordering: .sequentiallyConsistent) == 6)
    }
}
