import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation

/// A receiver's node step for a lone public message, without sockets: a
/// `ChatNode` on an in-memory store takes each signed message from a
/// transport that only hands frames over, and the probe waits for its
/// `.message` event before handing the next. The latency row's CPU a node
/// less this is what the transport and the wake-ups cost.
enum LoneNodeStep {
    /// A transport that hands over what it is given and sends nothing.
    actor HandOver: PeerTransport {
        nonisolated let events = EventChannel<TransportEvent>(capacity: .max)
        let peer: PeerInfo
        init(peer: PeerInfo) { self.peer = peer }
        func start() async throws {}
        func stop() async { events.finish() }
        func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool { true }
        func broadcast(_ payload: P2PPayload) async -> Int { 1 }
        func updateIdentity(_ identity: NodeIdentity) async {}
        func connectedPeers() async -> [PeerInfo] { [peer] }
    }

    /// CPU (µs) of the process a message, averaged over `count` messages.
    static func cpuPerMessage(count: Int) async throws -> Double {
        let authorKey = try IdentityKey.generate(), myKey = try IdentityKey.generate()
        let author = Ed25519MessageAuthenticator(key: authorKey)
        let peer = PeerInfo(number: authorKey.nodeNumber, nickname: "n0", instanceId: "probe", address: "127.0.0.1:1",
                            identityKey: author.authorKey)
        let transport = HandOver(peer: peer)
        let identity = NodeIdentity(number: myKey.nodeNumber, nickname: "n1")
        let store = try ChatStore(path: nil, localNumber: identity.number, durability: .full)
        let node = ChatNode(identity: identity, transport: transport, store: store,
                            authenticator: Ed25519MessageAuthenticator(key: myKey))
        try await node.start()
        transport.events.yield(.peerJoined(peer))
        let base: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
        var payloads: [P2PPayload] = []
        for index in 0..<count {
            var payload = P2PPayload(type: .publicMessage, messageId: MessageID(millis: base + Int64(index), random: (3, UInt64(index))),
                                     senderNumber: authorKey.nodeNumber, senderNickname: "n0", content: NetworkRows.text(index),
                                     timestamp: base + Int64(index))
            author.sign(&payload)
            payloads.append(payload)
        }
        var events = node.events.makeAsyncIterator()
        let warm = min(50, count / 10)
        var start = MeshRow.processCPU()
        for (index, payload) in payloads.enumerated() {
            if index == warm { start = MeshRow.processCPU() }
            transport.events.yield(.received(payload, from: peer.number))
            while let event = await events.next() {
                if case .message(let message) = event, message.id == payload.messageId { break }
            }
        }
        let cpu = (MeshRow.processCPU() - start) / Double(count - warm) * 1e6
        await node.stop()
        return cpu
    }
}
