import ChatCore
import Foundation
import Testing
import TestSupport

/// Real `lanchat` processes on loopback moving files over `--json`
/// (docs/USAGE.md, "Files"): offer, decline, accept, verify, never
/// overwrite, and resume after kill -9 of either side.
@Suite(.realTime) struct FileTransferEndToEndTests {
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SeededRandom(seed: UInt64(count))
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func isEvent(_ name: String, id: String) -> ([String: Any]) -> Bool {
        { $0["event"] as? String == name && $0["id"] as? String == id }
    }

    /// Offers `path` from `sender` to `receiver` (by name) and returns the id
    /// once the receiver saw the offer.
    static func offer(_ path: String, from sender: NodeProcess, to receiver: NodeProcess, name: String) async throws -> String {
        func replies() -> [[String: Any]] { sender.jsonEvents.filter { $0["cmd"] as? String == "sendFile" || $0["event"] as? String == "error" } }
        let before = replies().count
        sender.send(json: ["cmd": "sendFile", "to": name, "path": path])
        try await sender.event("sendFile answered") { _ in replies().count > before }
        let reply = try #require(replies().last)
        let id = try #require(reply["id"] as? String, "sendFile refused: \(reply)")
        // The first offer comes with a DM request (the offer is held with it):
        // the receiver accepts the request, and only then sees the offer.
        if !receiver.jsonEvents.contains(where: { $0["event"] as? String == "dmState" && $0["state"] as? String == "accepted" }) {
            try await receiver.event("DM request") { $0["event"] as? String == "dmRequest" }
            #expect(!receiver.jsonEvents.contains(where: Self.isEvent("fileOffer", id: id)), "held until the request is accepted")
            let sender = try #require(receiver.jsonEvents.first { $0["event"] as? String == "dmRequest" }?["peer"] as? [String: Any])
            receiver.send(json: ["cmd": "accept", "peer": try #require(sender["name"] as? String)])
        }
        try await receiver.event("offer") { Self.isEvent("fileOffer", id: id)($0) }
        return id
    }

    @Test func declinedThenAcceptedFilesArriveVerifiedAndNeverOverwrite() async throws {
        let scratch = try ScratchDirectory()
        let downloads = scratch.path + "/downloads"
        let port = EndToEndTests.discoveryPort()
        let alice = try EndToEndTests.node("alice", port: port)
        let bob = try EndToEndTests.node("bob", port: port, ["--download-dir", downloads])
        defer { alice.kill9(); bob.kill9() }
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        let content = Self.randomBytes(1_048_576 + 3)
        let source = try scratch.file("report.bin", bytes: content)

        // An offer writes nothing; a declined one never does.
        let declined = try await Self.offer(source, from: alice, to: bob, name: "bob")
        let offer = try #require(bob.jsonEvents.first(where: Self.isEvent("fileOffer", id: declined)))
        #expect(offer["name"] as? String == "report.bin")
        #expect(offer["size"] as? Int == content.count)
        #expect((offer["sha256"] as? String)?.count == 64)
        #expect(offer["from"] as? Int != nil)
        #expect(!FileManager.default.fileExists(atPath: downloads))
        bob.send(json: ["cmd": "declineFile", "id": declined])
        let refusal = try await alice.event("declined") { Self.isEvent("fileFailed", id: declined)($0) }
        #expect((refusal["reason"] as? String)?.contains("declined") == true)
        #expect(!FileManager.default.fileExists(atPath: downloads))

        // Accepted twice: the second copy gets "(2)", the first stays.
        var saved: [String] = []
        for _ in 0..<2 {
            let id = try await Self.offer(source, from: alice, to: bob, name: "bob")
            bob.send(json: ["cmd": "acceptFile", "id": id])
            let done = try await bob.event("saved") { Self.isEvent("fileDone", id: id)($0) }
            try await alice.event("sender done") { Self.isEvent("fileDone", id: id)($0) }
            let path = try #require(done["path"] as? String)
            #expect(scratch.contents(path) == content)
            #expect(done["sha256"] as? String == offer["sha256"] as? String)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            saved.append(path)
        }
        #expect(saved == [downloads + "/report.bin", downloads + "/report (2).bin"])
        #expect(scratch.listing(downloads).sorted() == ["report (2).bin", "report.bin"], "no partial file left")

        bob.send(json: ["cmd": "files"])
        let listing = try await bob.event("files") { $0["cmd"] as? String == "files" }
        let states = (listing["files"] as? [[String: Any]])?.compactMap { $0["state"] as? String }
        #expect(states?.sorted() == ["declined", "done", "done"])
    }

    /// An offer nobody answers writes nothing, and a file that changes on
    /// the sender's disk after the offer fails clearly on both sides.
    @Test func aChangedFileFailsClearly() async throws {
        let scratch = try ScratchDirectory()
        let downloads = scratch.path + "/downloads"
        let port = EndToEndTests.discoveryPort()
        let alice = try EndToEndTests.node("alice", port: port)
        let bob = try EndToEndTests.node("bob", port: port, ["--download-dir", downloads])
        defer { alice.kill9(); bob.kill9() }
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        let source = try scratch.file("notes.txt", bytes: Array("version one".utf8))
        let id = try await Self.offer(source, from: alice, to: bob, name: "bob")
        #expect(!FileManager.default.fileExists(atPath: downloads))
        try Data("version two".utf8).write(to: URL(fileURLWithPath: source))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: source)
        bob.send(json: ["cmd": "acceptFile", "id": id])
        let failed = try await bob.event("failed") { Self.isEvent("fileFailed", id: id)($0) }
        #expect((failed["reason"] as? String)?.contains("changed on the sender's disk") == true)
        let told = try await alice.event("failed") { Self.isEvent("fileFailed", id: id)($0) }
        #expect((told["reason"] as? String)?.contains("changed on the sender's disk") == true)
        #expect(scratch.listing(downloads).isEmpty, "the partial file is removed")
    }

    /// The receiver's disk "fills" mid-way (a 1 MiB file size limit, so a
    /// write fails as on a full disk): a clear failure on both sides, the
    /// partial file removed, and chat goes on.
    @Test func aFullDiskFailsClearlyAndChatGoesOn() async throws {
        let scratch = try ScratchDirectory()
        let downloads = scratch.path + "/downloads"
        let port = EndToEndTests.discoveryPort()
        let alice = try EndToEndTests.node("alice", port: port)
        // dash counts `ulimit -f` in 512-byte blocks; SIGXFSZ ignored across
        // exec, so the write fails with EFBIG instead of killing the node.
        let bob = try NodeProcess(executable: "/bin/sh", [
            "-c", "trap '' XFSZ; ulimit -f 2048 && exec \"$0\" \"$@\"", NodeProcess.binary.path,
            "--json", "--nick", "bob", "--broadcast", "127.255.255.255", "--discovery-port", "\(port)",
            "--beacon-interval", "0.5", "--in-memory", "--download-dir", downloads,
        ])
        defer { alice.kill9(); bob.kill9() }
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        let source = try scratch.file("big.bin", bytes: Self.randomBytes(4 * 1_048_576))
        let id = try await Self.offer(source, from: alice, to: bob, name: "bob")
        bob.send(json: ["cmd": "acceptFile", "id": id])
        let failed = try await bob.event("failed") { Self.isEvent("fileFailed", id: id)($0) }
        #expect((failed["reason"] as? String)?.contains("cannot write the file") == true)
        let told = try await alice.event("told") { Self.isEvent("fileFailed", id: id)($0) }
        #expect((told["reason"] as? String)?.isEmpty == false)
        #expect(scratch.listing(downloads).isEmpty, "the partial file is removed")
        alice.send(json: ["cmd": "send", "text": "still here"])
        try await bob.event("chat goes on") { $0["event"] as? String == "message" && $0["text"] as? String == "still here" }
    }

    /// kill -9 of the receiver, then of the sender, mid-transfer: each time
    /// the transfer resumes once both are back, from what was written.
    @Test func resumesAfterKill9OfEitherSide() async throws {
        let scratch = try ScratchDirectory()
        let downloads = scratch.path + "/downloads"
        let aliceDir = scratch.path + "/alice", bobDir = scratch.path + "/bob"
        let port = EndToEndTests.discoveryPort()
        // 4 MiB at 1 MiB/s: long enough to kill each side mid-way.
        let aliceArguments = ["--file-rate", "1024"]
        var alice = try EndToEndTests.node("alice", port: port, aliceArguments, dataDir: aliceDir)
        var bob = try EndToEndTests.node("bob", port: port, ["--download-dir", downloads], dataDir: bobDir)
        defer { alice.kill9(); bob.kill9() }
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        let content = Self.randomBytes(4 * 1_048_576)
        let source = try scratch.file("big.bin", bytes: content)
        let id = try await Self.offer(source, from: alice, to: bob, name: "bob")
        bob.send(json: ["cmd": "acceptFile", "id": id])
        func progress(_ node: NodeProcess) -> Int {
            node.jsonEvents.filter(Self.isEvent("fileProgress", id: id)).compactMap { $0["bytes"] as? Int }.max() ?? 0
        }
        try await bob.event("a quarter") { _ in progress(bob) >= content.count / 4 }
        bob.kill9()
        let beforeReceiverCrash = progress(bob)

        bob = try EndToEndTests.node("bob", port: port, ["--download-dir", downloads], dataDir: bobDir)
        try await bob.event("resumed", within: .seconds(30)) { _ in progress(bob) >= content.count / 2 }
        let firstAfter = bob.jsonEvents.first(where: Self.isEvent("fileProgress", id: id))?["bytes"] as? Int ?? 0
        #expect(firstAfter >= beforeReceiverCrash, "resumed from the partial file, not from zero")
        alice.kill9()
        let beforeSenderCrash = progress(bob)

        alice = try EndToEndTests.node("alice", port: port, aliceArguments, dataDir: aliceDir)
        let done = try await bob.event("saved", within: .seconds(60)) { Self.isEvent("fileDone", id: id)($0) }
        #expect(scratch.contents(try #require(done["path"] as? String)) == content)
        #expect(beforeSenderCrash < content.count)
        try await alice.event("sender done", within: .seconds(20)) { Self.isEvent("fileDone", id: id)($0) }
        #expect(scratch.listing(downloads) == ["big.bin"])
    }
}
