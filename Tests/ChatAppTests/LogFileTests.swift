import ChatCore
import Foundation
@testable import ChatApp
import Synchronization
import Testing
import TestSupport

/// The full-screen client's log: a size-capped, rotated file in the data
/// directory, the newest lines for `/log`, warnings for the status line.
@Suite struct LogFileTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "lanchat-log-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    @Test func rotatesAtTheCapAndKeepsOneOlderFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try LogFile(path: directory + "/lanchat.log", maxBytes: 1_000)
        for n in 0..<100 { file.append("line \(n) " + String(repeating: "x", count: 40)) }  // ~5 KB
        #expect(Self.size(file.path) <= 1_000 && Self.size(file.path) > 0)
        #expect(Self.size(file.previousPath) <= 1_000 && Self.size(file.previousPath) > 900)
        let newest = try String(contentsOfFile: file.path, encoding: .utf8)
        #expect(newest.hasSuffix("line 99 " + String(repeating: "x", count: 40) + "\n"))
        #expect(!FileManager.default.fileExists(atPath: file.path + ".2"))
        // Whole lines only, in both files.
        for path in [file.path, file.previousPath] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.split(separator: "\n").allSatisfy { $0.hasPrefix("line ") && $0.hasSuffix("x") })
        }
    }

    @Test func reopeningAppendsAndCountsWhatIsThere() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lanchat.log"
        try LogFile(path: path, maxBytes: 100).append(String(repeating: "a", count: 60))
        let again = try LogFile(path: path, maxBytes: 100)
        again.append(String(repeating: "b", count: 60))  // 61 + 61 > 100: the first goes to .1
        #expect(try String(contentsOfFile: path, encoding: .utf8) == String(repeating: "b", count: 60) + "\n")
        #expect(try String(contentsOfFile: path + ".1", encoding: .utf8) == String(repeating: "a", count: 60) + "\n")
    }

    @Test func theBookKeepsTheNewestLinesWritesTheFileAndRaisesWarnings() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let book = LogBook(clock: ManualClock(now: Date(timeIntervalSince1970: 1_795_435_200)))
        let logger = book.logger(minimumLevel: .notice).labeled("transport")
        logger.notice("before the file")
        book.attach(try LogFile(path: directory + "/lanchat.log"))
        let raised = Mutex<[String]>([])
        book.onAttention { text in raised.withLock { $0.append(text) } }
        logger.info("dropped: under the level")
        logger.notice("a notice")
        logger.warning("peer \u{1B}[2Jevil\u{07} nickname")
        let file = try String(contentsOfFile: directory + "/lanchat.log", encoding: .utf8)
        #expect(file == """
            2026-11-23T12:00:00.000Z [transport] notice: before the file
            2026-11-23T12:00:00.000Z [transport] notice: a notice
            2026-11-23T12:00:00.000Z [transport] warning: peer evil nickname

            """)
        #expect(raised.withLock { $0 } == ["peer evil nickname"], "warnings only, sanitized")
        for n in 0..<(LogBook.keptLines + 10) { logger.notice("n\(n)") }
        let recent = book.recentLines
        #expect(recent.count == LogBook.keptLines)
        #expect(recent.first?.hasSuffix("notice: n10") == true && recent.last?.hasSuffix("notice: n\(LogBook.keptLines + 9)") == true)
    }
}

/// While the full-screen client owns the terminal, fd 2 points at the log
/// file: a stray write to stderr lands there, not on the screen.
@Suite struct StandardErrorRedirectTests {
    @Test func strayStderrGoesToTheFileAndComesBack() throws {
        let directory = try LogFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lanchat.log"
        let redirect = try #require(StandardErrorRedirect(path: path))
        FileHandle.standardError.write(Data("stray line\n".utf8))
        redirect.end()
        // fd 2 is the whole test process's: a test running beside this one
        // may write to stderr meanwhile, and its lines land here too (seen
        // in a parallel `swift test`). This one's line must be among them.
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("stray line"), "\(lines)")
    }
}
