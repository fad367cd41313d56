import ChatCore
import ChatNode
import Foundation
@testable import ChatApp
import Testing
import TestSupport

/// The file commands as both front ends spell them, and what they print.
@Suite struct FileCommandTests {
    @Test func consoleCommandsParse() throws {
        #expect(try ConsoleCommandParser.parse("/send bob /tmp/my report.pdf") == .sendFile(to: "bob", path: "/tmp/my report.pdf"))
        #expect(try ConsoleCommandParser.parse("/accept-file 5e0f9a11") == .acceptFile("5e0f9a11"))
        #expect(try ConsoleCommandParser.parse("/decline-file 5e0f9a11") == .declineFile("5e0f9a11"))
        #expect(try ConsoleCommandParser.parse("/cancel-file 5e0f9a11") == .cancelFile("5e0f9a11"))
        #expect(try ConsoleCommandParser.parse("/files") == .files)
        #expect(throws: UsageError.self) { try ConsoleCommandParser.parse("/send bob") }
        #expect(throws: UsageError.self) { try ConsoleCommandParser.parse("/accept-file") }
    }

    @Test func jsonCommandsParseWithTheIssuesNames() throws {
        let send = try JSONCommandParser.parse(#"{"cmd":"sendFile","to":"bob","path":"/tmp/a b.txt"}"#)
        #expect(send.command == .sendFile(to: "bob", path: "/tmp/a b.txt"))
        #expect(send.command.name == "sendFile")
        let id = "01934c04-c00a-7a00-9b00-000000000010"
        #expect(try JSONCommandParser.parse(#"{"cmd":"acceptFile","id":"\#(id)"}"#).command == .acceptFile(id))
        #expect(try JSONCommandParser.parse(#"{"cmd":"declineFile","id":"\#(id)"}"#).command == .declineFile(id))
        #expect(try JSONCommandParser.parse(#"{"cmd":"cancelFile","id":"\#(id)"}"#).command == .cancelFile(id))
        #expect(try JSONCommandParser.parse(#"{"cmd":"files"}"#).command == .files)
        #expect(throws: UsageError.self) { try JSONCommandParser.parse(#"{"cmd":"sendFile","to":"bob"}"#) }
        #expect(throws: UsageError.self) { try JSONCommandParser.parse(#"{"cmd":"acceptFile"}"#) }
    }

    static func transfer(name: String, state: FileTransfer.State = .offered, bytes: Int64 = 0) throws -> FileTransfer {
        FileTransfer(id: try #require(MessageID("01934c04-c00a-7a00-9b00-00005e0f9a11")), direction: .receiving,
                     peer: try #require(NodeNumber(rawValue: 42)), peerNickname: "b\u{1B}[31mob", peerKey: "", name: name,
                     size: 4 * 1_048_576, sha256: String(repeating: "0", count: 64), path: "", state: state, bytes: bytes,
                     reason: state == .failed ? "the sender: \u{1B}]0;pwned\u{07}" : nil)
    }

    @Test func noticesNeverCarryEscapesAndNameTheShortID() throws {
        let offer = try #require(ConsoleRenderer.fileNotice(.offer(try Self.transfer(name: "x\u{1B}[2J.txt"))))
        #expect(!offer.contains("\u{1B}"))
        #expect(offer.contains("/accept-file 5e0f9a11"))
        let failed = try #require(ConsoleRenderer.fileNotice(.failed(try Self.transfer(name: "a.txt", state: .failed))))
        #expect(!failed.contains("\u{1B}") && !failed.contains("\u{07}"))
        let lines = ConsoleRenderer(useColor: false).files([try Self.transfer(name: "a\u{9B}b", state: .accepted, bytes: 1_048_576)])
        #expect(lines.count == 1 && !lines[0].contains("\u{9B}"))
        #expect(lines[0].contains("#5e0f9a11") && lines[0].contains("1.0 MiB/4.0 MiB accepted"))
    }

    @Test func progressBarFillsByTenths() {
        #expect(ConsoleRenderer.progressBar(0, of: 100) == "▕··········▏ 0%")
        #expect(ConsoleRenderer.progressBar(55, of: 100) == "▕█████·····▏ 55%")
        #expect(ConsoleRenderer.progressBar(100, of: 100) == "▕██████████▏ 100%")
        #expect(ConsoleRenderer.progressBar(0, of: 0) == "▕██████████▏ 100%")
    }

    @Test func progressSaysRateAndTimeLeft() throws {
        var transfer = try Self.transfer(name: "a.bin", state: .accepted, bytes: 1_048_576)
        #expect(ConsoleRenderer.fileNotice(.progress(transfer)) == "a.bin ▕██········▏ 25% of 4.0 MiB")
        transfer.bytesPerSecond = 1_048_576
        #expect(ConsoleRenderer.fileNotice(.progress(transfer)) == "a.bin ▕██········▏ 25% of 4.0 MiB · 1.0 MiB/s · 3 s left")
        #expect(ConsoleRenderer.duration(185) == "3 min 5 s")
        #expect(ConsoleRenderer.duration(7_800) == "2 h 10 min")
    }

    @Test func jsonEventsUseTheIssuesNames() throws {
        let offer = JSONEventEncoder.file(.offer(try Self.transfer(name: "a.txt")))
        #expect(offer["event"] as? String == "fileOffer")
        #expect(Set(offer.keys).isSuperset(of: ["id", "from", "name", "size", "sha256"]))
        let progress = JSONEventEncoder.file(.progress(try Self.transfer(name: "a.txt", state: .accepted, bytes: 10)))
        #expect(progress["event"] as? String == "fileProgress" && progress["bytes"] as? Int64 == 10 && progress["size"] as? Int64 == 4 * 1_048_576)
        let done = JSONEventEncoder.file(.done(try Self.transfer(name: "a.txt", state: .done)))
        #expect(done["event"] as? String == "fileDone" && done["path"] != nil && done["sha256"] != nil)
        let failed = JSONEventEncoder.file(.failed(try Self.transfer(name: "a.txt", state: .failed)))
        #expect(failed["event"] as? String == "fileFailed" && failed["reason"] != nil)
    }

    /// Tab on `/send NAME PATH`: entries of the typed directory, as typed,
    /// directories with "/", hidden ones only when asked for.
    @Test func pathListingCompletesFromTheTypedDirectory() throws {
        let scratch = try ScratchDirectory()
        let dir = scratch.path
        try FileManager.default.createDirectory(atPath: dir + "/adir", withIntermediateDirectories: true)
        for name in ["a.txt", "b.txt", ".apple"] { _ = try scratch.file(name, bytes: []) }
        #expect(PathListing.candidates(for: dir + "/a") == [dir + "/a.txt", dir + "/adir/"])
        #expect(PathListing.candidates(for: dir + "/.a") == [dir + "/.apple"])
        #expect(PathListing.candidates(for: dir + "/nothing/x").isEmpty)
    }
}
