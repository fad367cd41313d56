import ChatCore
import ChatStore
import Foundation
import Testing
import TestSupport

/// Real processes: a receiver killed with SIGKILL during a burst of DMs,
/// then restarted, holds every DM its sender saw acknowledged, once.
@Suite(.realTime) struct CrashDurabilityTests {
    @Test func killedReceiverKeepsEveryAcknowledgedDM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-crash-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = EndToEndTests.discoveryPort()
        let alice = try EndToEndTests.node("alice", port: port)
        var bob = try EndToEndTests.node("bob", port: port, dataDir: directory)
        defer { alice.kill9(); bob.kill9() }
        let bobNumber = try await EndToEndTests.number(of: bob)
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        alice.send(json: ["cmd": "dm", "to": "bob", "text": "open up"])
        try await bob.event("request") { $0["event"] as? String == "dmRequest" }
        bob.send(json: ["cmd": "accept", "peer": "alice"])
        try await alice.event("accepted") { $0["event"] as? String == "dmState" && $0["state"] as? String == "accepted" }

        let total = 200
        for n in 1...total { alice.send(json: ["cmd": "dm", "to": "\(bobNumber)", "text": "burst \(n)"]) }
        // Kill bob part-way through the burst.
        try await bob.event("some of the burst") { $0["text"] as? String == "burst 10" }
        bob.signal(SIGKILL)
        _ = try? await bob.waitForExit()
        let deliveredBeforeRestart = Self.delivered(alice)
        #expect(!deliveredBeforeRestart.isEmpty)

        bob = try EndToEndTests.node("bob", port: port, dataDir: directory)
        #expect(try await EndToEndTests.number(of: bob) == bobNumber)
        try await alice.event("all delivered", within: .seconds(30)) { _ in Self.delivered(alice).count == total + 1 }
        bob.send(json: ["cmd": "quit"])
        _ = try await bob.waitForExit()

        let store = try ChatStore(path: directory + "/history.sqlite", localNumber: NodeNumber(rawValue: UInt64(bobNumber))!)
        #expect(try await store.integrityCheck())
        let aliceNumber = try await EndToEndTests.number(of: alice)
        let stored = try await store.page(.direct(NodeNumber(rawValue: UInt64(aliceNumber))!), after: nil, limit: 1000)
        let ids = stored.map { $0.id.description }
        #expect(ids.count == Set(ids).count, "no DM stored twice")
        #expect(Set(ids).isSuperset(of: deliveredBeforeRestart), "every DM acknowledged before the crash survived it")
        #expect(stored.count == total + 1)
        await store.close()
    }

    /// Ids of alice's DMs reported delivered so far.
    static func delivered(_ node: NodeProcess) -> Set<String> {
        Set(node.jsonEvents.filter { $0["event"] as? String == "delivery" && $0["state"] as? String == "delivered" }
            .compactMap { $0["id"] as? String })
    }
}
