import Foundation
import Testing
import TestSupport

/// The built binary's usage behaviour: help, version, bad arguments.
@Suite(.realTime) struct BinaryUsageTests {
    @Test func helpMatchesThePinnedText() async throws {
        let node = try NodeProcess(["--help"])
        #expect(try await node.waitForExit() == 0)
        let pinned = try String(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/help.txt"), encoding: .utf8)
        // A changed help text must be a deliberate change to the fixture too.
        #expect(node.stdoutLines.joined(separator: "\n") + "\n" == pinned)
        #expect(node.stdoutLines.first == "OVERVIEW: a LAN peer-to-peer chat node")
    }

    @Test func versionPrintsOneLine() async throws {
        let node = try NodeProcess(["--version"])
        #expect(try await node.waitForExit() == 0)
        #expect(node.stdoutLines == ["lanchat 0.1.0 (protocol 2)"])
    }

    @Test(arguments: [
        ["--bogus"], ["--port", "x"], ["bot", "dance"], ["--broadcast", "255.255.255.256"], ["stray"],
    ])
    func badArgumentsExit64WithOneLine(arguments: [String]) async throws {
        let node = try NodeProcess(arguments)
        #expect(try await node.waitForExit() == 64)
        #expect(node.stdoutLines.isEmpty)
        #expect(node.stderrLines.count == 1)
        #expect(node.stderrLines.first?.hasPrefix("lanchat: ") == true)
        #expect(node.stderrLines.first?.hasSuffix("(see 'lanchat --help')") == true)
    }
}
