import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import P2PTransport

/// Nodes running in this process, each a real `ChatNode` over a real
/// `P2PService` on loopback, finding each other by broadcast to
/// 127.255.255.255 on a discovery port of the benchmark's own. Each has an
/// identity key of its own (its number derives from it) and signs its
/// public messages, as `lanchat` does.
final class Cluster: Sendable {
    struct Member: Sendable {
        let identity: NodeIdentity
        let key: IdentityKey
        let node: ChatNode
        let service: P2PService
        let store: ChatStore
    }

    let members: [Member]
    /// Public message texts seen by each node (key: text).
    let messages = Arrivals()
    /// Acknowledged DMs seen by the senders (key: "delivered").
    let deliveries = Arrivals()
    private let consumers: [Task<Void, Never>]

    /// Starts `count` nodes; `storePath(i)` nil keeps node i's store in memory.
    init(count: Int, discoveryPort: Int, storePath: (Int) -> String? = { _ in nil }) async throws {
        var members: [Member] = []
        for index in 0..<count {
            let key = try IdentityKey.generate()
            let identity = NodeIdentity(number: key.nodeNumber, nickname: "n\(index)")
            var configuration = P2PConfiguration()
            configuration.identityKey = key
            configuration.discoveryPort = discoveryPort
            configuration.broadcastAddresses = ["127.255.255.255"]
            configuration.capabilities = ["ack", "history"]
            // These rows measure what a node can carry; the per-link frame
            // budget (1000 frames/s, a policy against floods) is measured by
            // the flood row instead, so it is lifted here.
            configuration.limits.frameBurst = 10_000_000
            configuration.limits.framesPerSecond = 10_000_000
            // The handshake row dials one node from 127.0.0.1 hundreds of
            // times a second: the per-address connection gate is a policy
            // too, not the cost being measured.
            configuration.limits.connectionBurstPerAddress = 1_000_000
            configuration.limits.connectionsPerSecondPerAddress = 1_000_000
            // As `lanchat` opens it: the default free-disk reserve checked at every commit.
            let path = storePath(index)
            let store = try ChatStore(path: path, localNumber: identity.number, durability: .full,
                                      diskReserve: path == nil ? nil : .standard)
            let logger = Self.logger(label: "n\(index)")
            // As `LANChatApp` wires them: one table of verified signatures per node.
            let verified = VerifiedSignatures()
            let service = P2PService(identity: identity, configuration: configuration, logger: logger, verifiedSignatures: verified)
            let node = ChatNode(identity: identity, transport: service, store: store, logger: logger,
                                authenticator: Ed25519MessageAuthenticator(key: key, verified: verified))
            members.append(Member(identity: identity, key: key, node: node, service: service, store: store))
        }
        self.members = members
        let messages = self.messages, deliveries = self.deliveries
        consumers = members.map { member in
            Task {
                for await event in member.node.events {
                    switch event {
                    case .message(let message) where message.senderNumber != member.identity.number:
                        messages.saw(message.content)
                    case .delivery(_, _, .delivered):
                        deliveries.saw("delivered")
                    default:
                        break
                    }
                }
            }
        }
        for member in members { try await member.node.start() }
    }

    /// Silent, unless LANCHAT_BENCH_LOG names a level (debug, info, ...):
    /// then the nodes log to standard error, to find out why a row failed.
    static func logger(label: String) -> ChatLogger {
        guard let name = ProcessInfo.processInfo.environment["LANCHAT_BENCH_LOG"],
              let level = [LogLevel.trace, .debug, .info, .notice, .warning, .error].first(where: { $0.description == name }) else {
            return .disabled
        }
        return ChatLogger(label: label, minimumLevel: level) { record in
            let at = String(format: "%.3f", Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1000))
            FileHandle.standardError.write(Data("\(at) \(record.level) \(record.label): \(record.message)\n".utf8))
        }
    }

    /// Waits until every node links to every other; false at the deadline.
    func waitForMesh(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var complete = true
            for member in members where await member.service.connectedPeers().count < members.count - 1 {
                complete = false
                break
            }
            if complete { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func stop() async {
        for member in members { await member.node.stop() }
        for consumer in consumers { await consumer.value }
        for member in members { await member.store.close() }
    }
}

/// Discovery ports for in-process and loopback runs: one per row, so rows
/// never hear each other, from 20000..<30000 (the range every parallel
/// run on this host draws its discovery ports from) and free when taken,
/// so no other run shares it.
enum BenchPorts {
    static func freeDiscoveryPort() -> Int {
        while true {
            let port = Int.random(in: 20_000..<30_000)
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
    }
}
