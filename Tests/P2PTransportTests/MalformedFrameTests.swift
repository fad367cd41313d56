import ChatCore
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// Named malformed frames from a linked peer: each is dropped and counted,
/// nothing of it is delivered, and the link carries on (up to the limit
/// of malformed lines). Names with terminal escapes are refused in a
/// hello, a frame and a beacon alike.
@Suite struct MalformedFrameTests {
    static let cases: [(name: String, line: String)] = [
        ("malformed UTF-8", "{\"version\":1,\"type\":\"publicMessage\",\"content\":\"\u{FFFD}\"}".replacingOccurrences(of: "\u{FFFD}", with: "\u{1}")),
        ("NUL byte", "{\"version\":1,\u{0}\"type\":\"publicMessage\"}"),
        ("invalid JSON", "{\"version\":1,\"type\":"),
        ("not an object", "[\"publicMessage\",\"hi\"]"),
        ("wrong type", #"{"version":1,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":"1501","senderNickname":"m","content":"x","timestamp":1732147200000}"#),
        ("huge number", #"{"version":1,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":1501,"senderNickname":"m","content":"x","timestamp":1e300}"#),
        ("absurd timestamp", #"{"version":1,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":1501,"senderNickname":"m","content":"x","timestamp":1}"#),
        ("escape in nickname", #"{"version":1,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":1501,"senderNickname":"m\u001b[2J","content":"x","timestamp":1732147200000}"#),
    ]

    @Test func eachMalformedFrameIsCountedAndNothingIsDelivered() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_500, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        for (index, (name, line)) in Self.cases.enumerated() {
            // A fresh peer per case: the link tolerates only a few.
            let raw = try RawPeer(connectingTo: port, as: TestNetwork.identity(1_501 + UInt64(index), "mallory"))
            raw.sendHello()
            try #require(await waitUntil { alice.log.joined(raw.identity.number) != nil }, "\(name)")
            var bytes = Array(line.utf8)
            if name == "malformed UTF-8" { bytes = bytes.map { $0 == 0x01 ? 0xFF : $0 } }
            raw.send(bytes + [0x0A])
            raw.send(raw.frame(.publicMessage, content: "after \(name)"))
            #expect(await waitUntil { alice.receivedTexts.contains("after \(name)") }, "\(name)")
            #expect(await alice.service.counters().malformed == index + 1, "\(name)")
            let delivered = alice.log.events.count { if case .received(_, let from) = $0 { from == raw.identity.number } else { false } }
            #expect(delivered == 1, "\(name): only the good frame after it")
            #expect(!raw.isClosed, "\(name)")
        }
        await alice.service.stop()
    }

    @Test func aRepeatedIdIsDroppedButADirectMessageRetryIsNot() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_510, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(1_511, "mallory"))
        raw.sendHello()
        try #require(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        let public1 = raw.frame(.publicMessage, content: "once")
        var retry = raw.frame(.directMessage, content: "retried")
        retry.targetNumber = alice.number
        for frame in [public1, public1, retry, retry, public1] { raw.send(frame) }
        raw.send(raw.frame(.publicMessage, content: "end"))
        #expect(await waitUntil { alice.receivedTexts.contains("end") })
        // The DM's repeat reaches the node, which acknowledges it again.
        #expect(alice.receivedTexts == ["once", "retried", "retried", "end"])
        #expect(await alice.service.counters().duplicateFrames == 2)
        #expect(!raw.isClosed)
        await alice.service.stop()
    }

    @Test func unknownTypesAreCountedAndPassedUpToBeSkipped() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_520, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, as: TestNetwork.identity(1_521, "newer"))
        raw.sendHello()
        try #require(await waitUntil { alice.log.joined(raw.identity.number) != nil })
        // PROTOCOL.md 4.4: a newer peer's type is not an error.
        raw.send(raw.frame(.unknown("reaction"), content: "👍"))
        raw.send(raw.frame(.unknown("\u{1B}[31m"), content: ""))
        raw.send(raw.frame(.publicMessage, content: "end"))
        #expect(await waitUntil { alice.receivedTexts.contains("end") })
        #expect(await alice.service.counters().unknownType == 2)
        #expect(await alice.service.counters().malformed == 0)
        await alice.service.stop()
    }

    @Test func controlCharactersInAHelloOrABeaconAreRefused() async throws {
        let discoveryPort = TestNetwork.discoveryPort()
        let configuration = TestNetwork.configuration(discoveryPort: discoveryPort)
        let alice = try await TestNode.started(1_530, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        for (index, name) in ["\u{1B}]0;pwned\u{7}", "bob\u{7F}", "\u{9B}2J"].enumerated() {
            let raw = try RawPeer(connectingTo: port, as: TestNetwork.identity(1_531 + UInt64(index), name))
            raw.sendHello()
            #expect(await waitUntil { raw.isClosed }, "\(name.debugDescription)")
            #expect(alice.log.joined(raw.identity.number) == nil)
        }
        #expect(await alice.service.counters().badHello == 3)
        let forger = BeaconSender(discoveryPort: discoveryPort)
        let forged = DiscoveryBeacon(kind: .beacon, identity: TestNetwork.identity(1_539, "x\u{1B}[8m"), tcpPort: 9,
                                     instanceId: InstanceID.make())
        forger.send(forged)
        #expect(await waitUntil { await alice.service.counters().malformedBeacons == 1 })
        #expect(await alice.service.announcementForTesting(NodeNumber(rawValue: 1_539)!) == nil)
        await alice.service.stop()
    }
}
