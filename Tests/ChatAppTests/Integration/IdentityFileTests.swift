import ChatCore
import ChatCrypto
import Foundation
import Testing
import TestSupport
@testable import ChatApp

/// `identity.key` in the data directory: created once with mode 0600,
/// refused when others can read it, and a v1 directory's number retired once.
@Suite(.realTime) struct IdentityFileTests {
    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "lanchat-identity-\(UUID().uuidString)"
        return path
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func keyIsCreatedOnceWithMode0600AndKept() throws {
        let path = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first: DataDirectory.LoadedIdentity
        do {
            let directory = try DataDirectory(path: path)
            first = try directory.identityKey()
            #expect(first.created && first.replacedNumber == nil && first.migrationNotice == nil)
            #expect(try Self.mode(directory.identityKeyPath) == 0o600)
            #expect(FileManager.default.contents(atPath: directory.identityKeyPath)?.count == 32)
        }
        let again = try DataDirectory(path: path).identityKey()
        #expect(!again.created)
        #expect(again.key.publicKey == first.key.publicKey)
        #expect(again.key.nodeNumber == first.key.nodeNumber)
        #expect(!FileManager.default.fileExists(atPath: path + "/identity.key.tmp"))
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606])
    func keyReadableByOthersIsRefused(mode: Int) throws {
        let path = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = try DataDirectory(path: path)
        _ = try directory.identityKey()
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory.identityKeyPath)
        #expect {
            try directory.identityKey()
        } throws: { error in
            let text = "\(error)"
            return text.contains("permissions \(String(mode, radix: 8))") && text.contains("too open")
                && text.contains("chmod 600")
        }
        // 0400 is fine: only the owner can read it.
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: directory.identityKeyPath)
        _ = try directory.identityKey()
    }

    /// A data directory lanchat creates is its owner's alone (the history
    /// and log inside would otherwise be readable by every local user);
    /// one that exists keeps the mode its owner chose.
    @Test func aNewDataDirectoryIsPrivateAnExistingOneKeepsItsMode() throws {
        let base = Self.temporaryDirectory()
        let path = base + "/nested/node"
        defer { try? FileManager.default.removeItem(atPath: base) }
        _ = try DataDirectory(path: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: path)
        _ = try DataDirectory(path: path)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o750)
    }

    @Test func malformedKeyFileIsRefused() throws {
        let path = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = try DataDirectory(path: path)
        _ = FileManager.default.createFile(atPath: directory.identityKeyPath, contents: Data([1, 2, 3]),
                                       attributes: [.posixPermissions: 0o600])
        #expect(throws: DataDirectory.Failure.self) { try directory.identityKey() }
    }

    @Test func v1DirectoryGetsAKeyDerivedNumberAndSaysSoOnce() throws {
        let path = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try "123456789\n".write(toFile: path + "/node-number", atomically: true, encoding: .utf8)
        let directory = try DataDirectory(path: path)
        let loaded = try directory.identityKey()
        #expect(loaded.replacedNumber == NodeNumber(rawValue: 123_456_789))
        let notice = try #require(loaded.migrationNotice)
        #expect(notice.contains("123456789") && notice.contains("\(loaded.key.nodeNumber)"))
        #expect(loaded.key.nodeNumber.rawValue != 123_456_789)
        #expect(!FileManager.default.fileExists(atPath: path + "/node-number"))
        #expect(FileManager.default.fileExists(atPath: path + "/node-number.v1"))
        let again = try directory.identityKey()
        #expect(again.migrationNotice == nil)
        #expect(again.key.nodeNumber == loaded.key.nodeNumber)
    }

    @Test func secretFileComesFromTheFlagOrTheEnvironment() throws {
        #expect(try CommandLineParser().parse(["--secret-file", "/s"]).secretFile == "/s")
        #expect(try CommandLineParser(environment: ["LANCHAT_SECRET_FILE": "/e"]).parse([]).secretFile == "/e")
        #expect(try CommandLineParser(environment: ["LANCHAT_SECRET_FILE": "/e"]).parse(["--secret-file=/f"]).secretFile == "/f")
        #expect(try CommandLineParser().parse([]).secretFile == nil)
        #expect(throws: UsageError.self) { try CommandLineParser().parse(["--secret-file", ""]) }
    }
}

/// The built binary with an identity file on disk.
@Suite(.realTime) struct IdentityBinaryTests {
    @Test func nodeNumberComesFromTheKeyAndAnOpenKeyStopsTheStart() async throws {
        let path = IdentityFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let port = Int.random(in: 20_000...29_999)
        let arguments = ["--json", "--nick", "keyed", "--broadcast", "127.255.255.255", "--discovery-port", "\(port)", "--data-dir", path]
        let node = try NodeProcess(arguments)
        let ready = try await node.event("ready") { $0["event"] as? String == "ready" }
        node.closeInput()
        #expect(try await node.waitForExit() == 0)
        let key = try IdentityKey(fileContents: Array(try #require(FileManager.default.contents(atPath: path + "/identity.key"))))
        #expect(ready["number"] as? Int == Int(key.nodeNumber.rawValue))

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + "/identity.key")
        let refused = try NodeProcess(arguments)
        #expect(try await refused.waitForExit() == 1)
        #expect(refused.stderrLines.contains { $0.contains("too open") && $0.contains("identity.key") })
    }

    @Test func missingSecretFileStopsTheStart() async throws {
        let node = try NodeProcess(["--json", "--in-memory", "--broadcast", "127.255.255.255",
                                    "--discovery-port", "\(Int.random(in: 20_000...29_999))", "--secret-file", "/nonexistent/secret"])
        #expect(try await node.waitForExit() == 1)
        #expect(node.stderrLines.contains { $0.contains("group secret") })
    }
}
