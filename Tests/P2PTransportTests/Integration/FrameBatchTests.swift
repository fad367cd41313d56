import ChatCore
import Foundation
import LANChatHarness
@testable import P2PTransport
import Testing
import TestSupport

/// Frames that arrive in one read reach the node as one event
/// (`.receivedFrames`), in order, and any other event about the link (a
/// nickname change) stays in its place between them.
@Suite(.realTime) struct FrameBatchTests {
    @Test func aBurstIsHandedOverInOneEventWithAPeerChangeInItsPlace() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = TestNode(1_560, "alice", configuration: configuration, splitBatches: false)
        try await alice.service.start()
        let raw = try RawPeer(connectingTo: await alice.service.listeningPort, seed: 1_561, "bob")
        try await raw.handshake()
        try #require(await alice.log.waitUntil { alice.log.joined(raw.number) != nil })
        // Twenty records in one write; the eleventh carries a new nickname.
        var burst: [UInt8] = []
        for index in 1...20 {
            var frame = raw.frame(.publicMessage, content: "b\(index)")
            if index > 10 { frame.senderNickname = "robert" }
            burst += raw.seal(frame)
        }
        raw.sendRaw(burst)

        func flattened() -> [String] {
            alice.log.events.flatMap { event -> [String] in
                switch event {
                case .received(let payload, _): [payload.content]
                case .receivedFrames(let frames, _): frames.map(\.content)
                case .peerUpdated(let peer): ["updated:\(peer.nickname)"]
                default: []
                }
            }
        }
        try #require(await waitUntil { flattened().count == 21 }, "\(flattened())")
        let expected = (1...10).map { "b\($0)" } + ["updated:robert"] + (11...20).map { "b\($0)" }
        #expect(flattened() == expected)
        // Batched: far fewer events than frames (a read may split the burst,
        // but never into one event a frame).
        let frameEvents = alice.log.events.count { if case .received = $0 { true } else if case .receivedFrames = $0 { true } else { false } }
        #expect(frameEvents < 10, "\(frameEvents) events for 20 frames")
        #expect(alice.log.events.contains { if case .receivedFrames(let frames, let from) = $0 { frames.count > 1 && from == raw.number } else { false } })
        await alice.service.stop()
    }
}
