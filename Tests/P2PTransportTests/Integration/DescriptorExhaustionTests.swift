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
        try await node.event("ready") { $0["event"] as? String == "ready" }
        let attacker = try HoldingListener(address: 0x7F00_0002)
        let forger = BeaconSender(discoveryPort: discoveryPort, source: 0x7F00_0002)
        let pid = node.process.processIdentifier

        // 6 s: past the 3 s fallback delay, so invented numbers above the
        // node's come due as well as those below.
        var mostDescriptors = 0
        var sent = 0
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(6), node.process.isRunning {
            for _ in 0..<10 {
                let identity = NodeIdentity(number: NodeNumber(rawValue: UInt64.random(in: 1...(1 << 53) - 1))!, nickname: "fake\(sent)")
                forger.send(DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: attacker.port, instanceId: InstanceID.make()))
                sent += 1
            }
            mostDescriptors = max(mostDescriptors, Self.descriptorCount(of: pid))
            try await Task.sleep(for: .milliseconds(10))
        }

        #expect(attacker.acceptedCount > 0, "the flood made the node dial")
        #expect(node.process.isRunning, "the node died: \(node.stderrLines.suffix(3))")
        #expect(mostDescriptors < Self.descriptorLimit, "\(mostDescriptors) descriptors open")
        node.send(json: ["cmd": "stats"])
        let stats = try await node.event("stats") { $0["cmd"] as? String == "stats" }
        let transport = try #require(stats["transport"] as? [String: Any])
        #expect((transport["deferredDials"] as? Int ?? 0) > 0, "\(transport)")
        attacker.close()
        node.send(json: ["cmd": "quit"])
        #expect(try await node.waitForExit() == 0)
    }

    private static func descriptorCount(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
