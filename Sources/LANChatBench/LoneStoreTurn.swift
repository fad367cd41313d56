import ChatCore
import ChatCrypto
import ChatStore
import Foundation

/// The store's part of a lone received message, alone: the lookup and the
/// one-message commit a receiver makes in one turn of its store
/// (`ChatStoring.lookUpAndCommit`), on an in-memory store as the latency
/// row's nodes have, with nothing else running in the process. A flood
/// shares one such turn among thousands of messages; a lone message pays
/// all of it, so this is a floor under the latency path's CPU a node that
/// no change of hand-offs can go below.
enum LoneStoreTurn {
    /// CPU (µs) of one turn, averaged over `count` signed messages from one author.
    static func cpuPerMessage(count: Int) async throws -> Double {
        let key = try IdentityKey.generate()
        let authenticator = Ed25519MessageAuthenticator(key: key)
        let me = NodeNumber(rawValue: 1)!
        let store = try ChatStore(path: nil, localNumber: me)
        defer { Task { await store.close() } }
        var messages: [Message] = []
        messages.reserveCapacity(count)
        let base: Int64 = 1_732_147_200_000
        for index in 0..<count {
            var payload = P2PPayload(type: .publicMessage, messageId: MessageID(millis: base + Int64(index), random: (3, UInt64(index))),
                                     senderNumber: key.nodeNumber, senderNickname: "n0", content: NetworkRows.text(index),
                                     timestamp: base + Int64(index))
            authenticator.sign(&payload)
            messages.append(try Message(from: payload, localNumber: me))
        }
        // Warm the statement cache and the tables first, as a running node has them.
        let warm = min(50, count / 10)
        var start = MeshRow.processCPU()
        for (index, message) in messages.enumerated() {
            if index == warm { start = MeshRow.processCPU() }
            let turn: StoreTurn<Void> = await store.lookUpAndCommit(ids: [message.id], authors: [message.senderNumber]) { _ in
                var changes = StoreChanges()
                changes.messages = [message]
                return ((), changes)
            }
            if case .committed(_, .failure(let error)) = turn { throw error }
        }
        return (MeshRow.processCPU() - start) / Double(count - warm) * 1e6
    }
}
