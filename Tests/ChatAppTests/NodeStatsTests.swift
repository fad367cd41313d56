import ChatCore
import ChatNode
import ChatStore
import Foundation
import ChatApp
import Testing
import TestSupport

/// `/stats` and the `--json` `stats` reply show how often the node paused
/// its transport, and the other node-level bounds.
@Suite struct NodeStatsTests {
    static var counters: NodeCounters {
        var counters = NodeCounters()
        counters.backpressure = 3
        counters.commitFailures = 5
        counters.eventsDropped = 7
        counters.quotaRefused = 11
        counters.catchUpTimeouts = 13
        counters.agedOut = 17
        return counters
    }

    @Test func jsonStatsCarryBackpressureAndTheOtherBounds() throws {
        let object = JSONEventEncoder.stats(Self.counters, transport: ["links": 2])
        #expect(object["backpressure"] as? Int == 3)
        #expect(object["commitFailures"] as? Int == 5)
        #expect(object["eventsDropped"] as? Int == 7)
        #expect(object["quotaRefused"] as? Int == 11)
        #expect(object["catchUpTimeouts"] as? Int == 13)
        #expect(object["agedOut"] as? Int == 17)
        #expect(object["transport"] as? [String: Int] == ["links": 2])
        // Through the encoder as a script reads it.
        let line = JSONEventEncoder.line(object)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(decoded["backpressure"] as? Int == 3)
    }

    @Test func consoleStatsNameBackpressure() {
        let lines = ConsoleRenderer(useColor: false).stats(Self.counters, transport: [:])
        #expect(lines.contains("-- backpressure 3, commit failures 5, events dropped 7, refused over a peer's quota 11, aged out of the shared pool 17, catch-up timeouts 13"))
    }

    @Test func aPeerReachingItsQuotaIsAStorageEventNamingThePeer() async throws {
        let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
        let node = ChatNode(identity: me, transport: InMemoryNetwork().transport(for: me),
                            store: try ChatStore(path: nil, localNumber: me.number))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-quota-\(UUID().uuidString).jsonl").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let session = JSONSession(node: node, out: LineWriter(handle), instanceId: "test")
        await session.handle(.peerQuota(peer: NodeNumber(rawValue: 3)!, nickname: "mal\u{1b}[2Jlory", quotaBytes: 800))
        try handle.close()
        let line = try String(contentsOfFile: path, encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "storage")
        #expect(object["ok"] as? Bool == true, "the store itself works")
        #expect(object["peer"] as? Int == 3)
        #expect(object["quotaBytes"] as? Int == 800)
        #expect(!line.contains("\u{1b}"), "JSON escapes what the peer wrote")
    }
}
