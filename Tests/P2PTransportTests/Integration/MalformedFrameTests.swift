import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Named malformed frames from a linked peer, each in a record that opens:
/// each is dropped and counted, nothing of it is delivered, and the link
/// carries on (up to the limit of malformed frames). Names with terminal
/// escapes are refused in a hello, a frame and a beacon alike.
@Suite(.realTime) struct MalformedFrameTests {
    static let cases: [(name: String, line: String)] = [
        ("malformed UTF-8", "{\"version\":2,\"type\":\"publicMessage\",\"content\":\"\u{FFFD}\"}".replacingOccurrences(of: "\u{FFFD}", with: "\u{1}")),
        ("NUL byte", "{\"version\":2,\u{0}\"type\":\"publicMessage\"}"),
        ("invalid JSON", "{\"version\":2,\"type\":"),
        ("not an object", "[\"publicMessage\",\"hi\"]"),
        ("wrong type", #"{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":"SENDER","senderNickname":"m","content":"x","timestamp":1732147200000}"#),
        ("huge number", #"{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":SENDER,"senderNickname":"m","content":"x","timestamp":1e300}"#),
        ("absurd timestamp", #"{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":SENDER,"senderNickname":"m","content":"x","timestamp":1}"#),
        ("escape in nickname", #"{"version":2,"type":"publicMessage","messageId":"01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f","senderNumber":SENDER,"senderNickname":"m\u001b[2J","content":"x","timestamp":1732147200000}"#),
    ]

    @Test func eachMalformedFrameIsCountedAndNothingIsDelivered() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_500, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        for (index, (name, line)) in Self.cases.enumerated() {
            // A fresh peer per case: the link tolerates only a few.
            let raw = try RawPeer(connectingTo: port, seed: 1_501 + UInt64(index), "mallory")
            try await raw.handshake()
            try #require(await alice.log.waitUntil { alice.log.joined(raw.number) != nil }, "\(name)")
            // The link's own number: only the named defect is wrong.
            var bytes = Array(line.replacingOccurrences(of: "SENDER", with: "\(raw.number)").utf8)
            if name == "malformed UTF-8" { bytes = bytes.map { $0 == 0x01 ? 0xFF : $0 } }
            raw.sendRecord(bytes)
            raw.send(raw.frame(.publicMessage, content: "after \(name)"))
            #expect(await alice.log.waitUntil { alice.receivedTexts.contains("after \(name)") }, "\(name)")
            #expect(await alice.service.counters().malformed == index + 1, "\(name)")
            let delivered = alice.log.events.count { if case .received(_, let from) = $0 { from == raw.number } else { false } }
            #expect(delivered == 1, "\(name): only the good frame after it")
            #expect(!raw.isClosed, "\(name)")
        }
        await alice.service.stop()
    }

    @Test func aRepeatedIdIsDroppedButADirectMessageRetryIsNot() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_510, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 1_511, "mallory")
        try await raw.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        let public1 = raw.frame(.publicMessage, content: "once")
        var retry = raw.frame(.directMessage, content: "retried")
        retry.targetNumber = alice.number
        for frame in [public1, public1, retry, retry, public1] { raw.send(frame) }
        raw.send(raw.frame(.publicMessage, content: "end"))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("end") })
        // The DM's repeat reaches the node, which acknowledges it again.
        #expect(alice.receivedTexts == ["once", "retried", "retried", "end"])
        #expect(await alice.service.counters().duplicateFrames == 2)
        #expect(!raw.isClosed)
        await alice.service.stop()
    }

    @Test func unknownTypesAreCountedAndPassedUpToBeSkipped() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_520, "alice", configuration: configuration)
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 1_521, "newer")
        try await raw.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        // docs/PROTOCOL.md 4.4: a newer peer's type is not an error.
        raw.send(raw.frame(.unknown("reaction"), content: "👍"))
        raw.send(raw.frame(.unknown("\u{1B}[31m"), content: ""))
        raw.send(raw.frame(.publicMessage, content: "end"))
        #expect(await alice.log.waitUntil { alice.receivedTexts.contains("end") })
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
            // The hello is inside a verified identity payload; its name is
            // still checked, and the link is refused without acceptance.
            let raw = try RawPeer(connectingTo: port, seed: 1_531 + UInt64(index), name)
            try raw.sendMessage1()
            try await raw.awaitMessage2()
            try raw.sendMessage3()
            #expect(await waitUntil { raw.isClosed }, "\(name.debugDescription)")
            #expect(raw.frames.isEmpty, "\(name.debugDescription): no acceptance record")
            #expect(alice.log.joined(raw.number) == nil)
        }
        #expect(await alice.service.counters().badHello == 3)
        #expect(await alice.service.counters().handshakeFailures == 0)
        let forger = BeaconSender(discoveryPort: discoveryPort)
        let forged = DiscoveryBeacon(kind: .beacon, identity: TestNetwork.identity(1_539, "x\u{1B}[8m"), tcpPort: 9,
                                     instanceId: InstanceID.make())
        forger.send(forged)
        #expect(await waitUntil { await alice.service.counters().malformedBeacons == 1 })
        #expect(await alice.service.announcementForTesting(TestNetwork.key(1_539).nodeNumber) == nil)
        await alice.service.stop()
    }

    /// The hello rides inside a verified identity payload: the signature is
    /// good, but what it signed is not a usable hello. Each is refused
    /// (`badHello`, not a handshake failure) and never accepted.
    @Test func aVerifiedPayloadWhoseHelloIsNotAHelloIsRefused() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(1_540, "alice", configuration: configuration)
        let port = await alice.service.listeningPort
        let cases: [(String, (RawPeer) -> [UInt8])] = [
            ("no hello at all", { _ in [] }),
            ("not JSON", { _ in Array("hello, I am bob".utf8) }),
            ("a publicMessage in place of the hello", { RawPeer.encoded($0.frame(.publicMessage, content: "hi")) }),
            ("no instanceId", { var hello = $0.hello(); hello.instanceId = nil; return RawPeer.encoded(hello) }),
            ("an invalid instanceId", { var hello = $0.hello(); hello.instanceId = "not an id!"; return RawPeer.encoded(hello) }),
            ("no listenPort", { var hello = $0.hello(); hello.listenPort = nil; return RawPeer.encoded(hello) }),
        ]
        for (index, (name, helloBytes)) in cases.enumerated() {
            let raw = try RawPeer(connectingTo: port, seed: 1_541 + UInt64(index), "mallory")
            try raw.sendMessage1()
            try await raw.awaitMessage2()
            raw.sendRaw(try raw.message3(helloBytes: helloBytes(raw)))
            #expect(await waitUntil { raw.isClosed }, "\(name)")
            #expect(raw.frames.isEmpty, "\(name): no acceptance record")
            #expect(alice.log.joined(raw.number) == nil, "\(name)")
            #expect(await alice.service.counters().badHello == index + 1, "\(name)")
        }
        #expect(await alice.service.counters().handshakeFailures == 0)
        #expect(await alice.service.counters().claimedNumbers == 0)
        await alice.service.stop()
    }
}
