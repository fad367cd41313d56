import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// The SIGILL under a beacon flood, reproduced: a `lanchat` process under a
/// low descriptor limit is flooded with beacons of invented identities that
/// all point at a listener which accepts and never speaks. Before the dial
/// caps the node dialled each of them, ran out of descriptors, and the
/// Dispatch runtime, unable to open /proc/<tid>/stat, trapped ("workq:
/// registered worker exited prematurely"). Now its descriptors stay under
/// the limit and it keeps answering.
@Suite(.realTime) struct DescriptorExhaustionTests {
    static let descriptorLimit = 128

    @Test func aBeaconFloodUnderALowDescriptorLimitDoesNotKillTheNode() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        let node = try NodeProcess(["--json", "--nick", "victim", "--in-memory", "--broadcast", "127.255.255.255",
                                    "--discovery-port", "\(discoveryPort)"], descriptorLimit: Self.descriptorLimit)
        defer { node.kill9() }
        let ready = try await node.event("ready") { $0["event"] as? String == "ready" }
        let own = try #require((ready["number"] as? NSNumber)?.uint64Value)
        let attacker = try HoldingListener(address: 0x7F00_0002)
        let forger = BeaconSender(discoveryPort: discoveryPort, source: 0x7F00_0002)
        let pid = node.pid

        // The caps bind only when more dials come due than the unproven-dial
        // bucket (64, then 32 a second) or 64 pending to one address allow.
        // Of numbers drawn over the whole range the node dials at once only
        // those below its own, a share set by its random number: a low one,
        // on a node slowed by load (fewer passes over its table, entries
        // crowded out before their 3 s fallback), stayed under every cap.
        // So half the inventions are below the node's number and half
        // above; the flood is paced by elapsed time (about 1,000 beacons a
        // second, at most 100 per turn), not by this loop's turns; and it
        // goes on, for 6 s at least (past the 3 s fallback delay, so numbers
        // above come due too), until the node reports a deferred dial.
        var mostDescriptors = 0
        var sent = 0
        var deferred = 0
        var lastAsked = ContinuousClock.now
        let started = lastAsked
        while node.isRunning {
            let elapsed = ContinuousClock.now - started
            if elapsed >= .seconds(6), deferred > 0 { break }
            if elapsed >= TestDeadline.standard { break }
            let due = min(sent + 100, Int(elapsed / .milliseconds(1)))
            while sent < due {
                let identity = NodeIdentity(number: Self.invented(beside: own, below: sent.isMultiple(of: 2)), nickname: "fake\(sent)")
                forger.send(DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: attacker.port, instanceId: InstanceID.make()))
                sent += 1
            }
            mostDescriptors = max(mostDescriptors, Self.descriptorCount(of: pid))
            if ContinuousClock.now - lastAsked >= .milliseconds(500) {
                deferred = Self.deferredDials(in: node.jsonEvents) ?? deferred
                node.send(json: ["cmd": "stats"])
                lastAsked = ContinuousClock.now
            }
            try await Task.sleep(for: .milliseconds(10))
        }

        #expect(attacker.acceptedCount > 0, "the flood made the node dial")
        #expect(node.isRunning, "the node died: \(node.stderrLines.suffix(3))")
        #expect(mostDescriptors < Self.descriptorLimit, "\(mostDescriptors) descriptors open")
        // A fresh answer, after every one asked during the flood.
        let answered = Self.statsAnswers(in: node.jsonEvents).count
        node.send(json: ["cmd": "stats"])
        try #require(await waitUntil("a stats answer") { Self.statsAnswers(in: node.jsonEvents).count > answered })
        let stats = try #require(Self.statsAnswers(in: node.jsonEvents).last)
        let transport = try #require(stats["transport"] as? [String: Any])
        #expect((transport["deferredDials"] as? Int ?? 0) > 0, "\(sent) beacons sent: \(transport)")
        attacker.close()
        node.send(json: ["cmd": "quit"])
        #expect(try await node.waitForExit() == 0)
    }

    /// A random number below `own` (or above it), for an invented identity.
    private static func invented(beside own: UInt64, below: Bool) -> NodeNumber {
        let largest: UInt64 = (1 << 53) - 1
        let lower = below ? own > 1 : own == largest
        return NodeNumber(rawValue: lower ? UInt64.random(in: 1..<own) : UInt64.random(in: own + 1...largest))!
    }

    private static func statsAnswers(in events: [[String: Any]]) -> [[String: Any]] {
        events.filter { $0["cmd"] as? String == "stats" }
    }

    /// The latest stats answer's count of dials the caps held back.
    private static func deferredDials(in events: [[String: Any]]) -> Int? {
        (statsAnswers(in: events).last?["transport"] as? [String: Any])?["deferredDials"] as? Int
    }

    private static func descriptorCount(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
