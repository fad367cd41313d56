import Foundation
import Testing
import TestSupport

/// Key continuity through the built binary over `--json`: both sides show
/// the same safety number, a verification survives a restart, and after
/// the restart an impostor with alice's nickname raises `keyChanged` and a
/// DM to it is held.
@Suite(.realTime) struct KeyContinuityEndToEndTests {
    static func reply(_ node: NodeProcess, _ command: [String: Any], id: String) async throws -> [String: Any] {
        var command = command
        command["id"] = id
        node.send(json: command)
        return try await node.event("reply \(id)") { $0["re"] as? String == id }
    }

    @Test func safetyNumbersMatchAndAVerifiedKeyThatChangesIsFlaggedAfterARestart() async throws {
        let port = EndToEndTests.discoveryPort()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-keys-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bobDir = root + "/bob"
        var bob = try EndToEndTests.node("bob", port: port, dataDir: bobDir)
        let alice = try EndToEndTests.node("alice", port: port, dataDir: root + "/alice")
        defer { bob.kill9(); alice.kill9() }
        try await EndToEndTests.waitForPeers(bob, ["alice"])
        try await EndToEndTests.waitForPeers(alice, ["bob"])

        let atBob = try await Self.reply(bob, ["cmd": "verify", "name": "alice"], id: "1")
        let atAlice = try await Self.reply(alice, ["cmd": "verify", "name": "bob"], id: "2")
        let number = try #require(atBob["safetyNumber"] as? String)
        #expect(number.split(separator: " ").count == 12)
        #expect(atAlice["safetyNumber"] as? String == number, "the same on both screens")
        #expect(atBob["trust"] as? String == "new" && atBob["confirmed"] as? Bool == false)
        let confirmed = try await Self.reply(bob, ["cmd": "verify", "name": "alice", "confirm": true], id: "3")
        #expect(confirmed["trust"] as? String == "verified" && confirmed["verified"] as? Bool == true)
        alice.kill9()

        bob.send(json: ["cmd": "quit"])
        _ = try await bob.waitForExit()
        bob = try EndToEndTests.node("bob", port: port, dataDir: bobDir)
        let impostor = try EndToEndTests.node("alice", port: port, dataDir: root + "/impostor")
        defer { impostor.kill9() }
        let change = try await bob.event("keyChanged", within: .seconds(15)) { $0["event"] as? String == "keyChanged" }
        #expect(change["nickname"] as? String == "alice")
        #expect(change["previousVerified"] as? Bool == true && change["dmsHeld"] as? Bool == true)
        #expect(change["previousFingerprint"] as? String == atBob["fingerprint"] as? String)
        #expect((change["peer"] as? [String: Any])?["trust"] as? String == "changed")
        let held = try await Self.reply(bob, ["cmd": "dm", "to": "alice", "text": "the secret"], id: "4")
        #expect(held["event"] as? String == "error" && held["held"] as? Int == 1, "\(held)")
        let whois = try await Self.reply(bob, ["cmd": "whois", "name": "alice"], id: "5")
        #expect((whois["peer"] as? [String: Any])?["trust"] as? String == "changed")

        // The held DM survives a restart: in its conversation, as held; then discarded.
        let heldID = try #require(held["id"] as? String)
        bob.send(json: ["cmd": "quit"])
        _ = try await bob.waitForExit()
        bob = try EndToEndTests.node("bob", port: port, dataDir: bobDir)
        try await EndToEndTests.waitForPeers(bob, ["alice"])
        let history = try await Self.reply(bob, ["cmd": "history", "room": "alice"], id: "6")
        let shown = try #require((history["messages"] as? [[String: Any]])?.first { $0["id"] as? String == heldID }, "\(history)")
        #expect(shown["delivery"] as? String == "held" && shown["text"] as? String == "the secret", "\(shown)")
        let discarded = try await Self.reply(bob, ["cmd": "discard", "name": "alice"], id: "7")
        #expect(discarded["discarded"] as? Int == 1, "\(discarded)")
        _ = try await bob.event("discarded") { $0["event"] as? String == "delivery" && $0["state"] as? String == "discarded" }
    }
}
