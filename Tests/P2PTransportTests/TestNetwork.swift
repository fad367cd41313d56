import ChatCore
import ChatCrypto
import Foundation
import Glibc
@testable import P2PTransport
import Synchronization
import TestSupport

/// Loopback-only settings for tests: beacons to 127.255.255.255 only,
/// short timers, a discovery port of the test's own.
enum TestNetwork {
    private static let nextPort = Atomic<Int>(Int.random(in: 0..<10_000))
    private static let nextListenPort = Atomic<Int>(Int.random(in: 0..<1_000))

    /// A UDP port in 20000..<30000 (below the ephemeral range, 32768-60999,
    /// so no kernel-chosen port lands on it) that nothing on this host holds right
    /// now, distinct per call, so parallel tests (and other test runs on the
    /// host) do not hear each other's beacons.
    static func discoveryPort() -> Int {
        while true {
            let offset = nextPort.add(7, ordering: .relaxed).newValue
            let port = 20_000 + offset % 10_000
            if isFree(port, type: SOCK_DGRAM) { return port }
        }
    }

    /// A TCP port for a test that must know a listen port before starting
    /// (a restart on the same port, a static peer pointing at itself).
    /// Taken from 61000..<65000, above Linux's ephemeral range (32768-60999),
    /// so no other test's ephemeral listener can take it meanwhile.
    static func listenPort() -> Int {
        while true {
            let offset = nextListenPort.add(7, ordering: .relaxed).newValue
            let port = 61_000 + offset % 4_000
            if isFree(port, type: SOCK_STREAM) { return port }
        }
    }

    static func configuration(discoveryPort: Int) -> P2PConfiguration {
        .loopbackTest(discoveryPort: discoveryPort)
    }

    /// The identity key a test means by `seed`: the same for the same seed,
    /// so a failure replays. Its node number is derived, so it is not `seed`.
    static func key(_ seed: UInt64) -> IdentityKey {
        let bytes = withUnsafeBytes(of: seed.bigEndian) { Array($0) }
        return try! IdentityKey(seed: Array(repeating: 0x5E, count: 24) + bytes)
    }

    /// The identity of the key `seed` names, with `nickname`.
    static func identity(_ seed: UInt64, _ nickname: String) -> NodeIdentity {
        NodeIdentity(number: key(seed).nodeNumber, nickname: nickname)
    }

    /// Two seeds from `base` up whose derived numbers are ordered as asked:
    /// for tests of the rules that depend on which number is lower.
    static func orderedSeeds(from base: UInt64, lowerFirst: Bool = true) -> (UInt64, UInt64) {
        let (a, b) = (base, base + 1)
        let aIsLower = key(a).nodeNumber < key(b).nodeNumber
        return aIsLower == lowerFirst ? (a, b) : (b, a)
    }

    /// A bind without SO_REUSEADDR/SO_REUSEPORT fails while any socket holds the port.
    private static func isFree(_ port: Int, type: __socket_type) -> Bool {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: 0)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A running service and everything it has reported, for assertions.
final class TestNode: Sendable {
    let service: P2PService
    /// Names the identity key: a node started again with it is the same node.
    let seed: UInt64
    let identity: NodeIdentity
    let log: EventLog<TransportEvent>

    /// `seed` names the node's identity key (`TestNetwork.key`); its
    /// number derives from that key.
    /// `splitBatches` false: the log keeps `.receivedFrames` as the
    /// service emitted them (tests of the batching itself).
    /// `clock`: a `ManualClock` makes the service tick only when the test advances it.
    init(_ seed: UInt64, _ nickname: String, configuration: P2PConfiguration, logger: ChatLogger = .disabled,
         splitBatches: Bool = true, clock: any ChatClock = SystemClock()) {
        self.seed = seed
        identity = TestNetwork.identity(seed, nickname)
        var configuration = configuration
        configuration.identityKey = TestNetwork.key(seed)
        service = P2PService(identity: identity, configuration: configuration, clock: clock, logger: logger)
        log = splitBatches ? EventLog(frames: service.events) : EventLog(service.events)
    }

    var number: NodeNumber { identity.number }

    static func started(_ seed: UInt64, _ nickname: String, configuration: P2PConfiguration,
                        clock: any ChatClock = SystemClock()) async throws -> TestNode {
        let node = TestNode(seed, nickname, configuration: configuration, clock: clock)
        try await node.service.start()
        return node
    }

    /// A public message from this node.
    func publicMessage(_ text: String) -> P2PPayload {
        P2PPayload(type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
                   senderNumber: number, senderNickname: identity.nickname, content: text, timestamp: 1_732_147_200_000)
    }

    func directMessage(_ text: String, to target: NodeNumber) -> P2PPayload {
        var payload = publicMessage(text)
        payload.type = .directMessage
        payload.targetNumber = target
        return payload
    }

    /// Texts of frames received from peers, in order.
    var receivedTexts: [String] {
        log.events.compactMap { if case .received(let payload, _) = $0 { payload.content } else { nil } }
    }
}

/// Whether every node has a link to every other one.
func fullMesh(_ nodes: [TestNode]) async -> Bool {
    for node in nodes {
        let peers = Set(await node.service.connectedPeers().map(\.number))
        if peers != Set(nodes.map(\.number)).subtracting([node.number]) { return false }
    }
    return true
}
