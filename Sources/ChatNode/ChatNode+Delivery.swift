import ChatCore

/// The outbox: every outgoing DM is stored first, then written to its
/// peer's link until the peer acknowledges it, across link drops and
/// restarts of either side.
extension ChatNode {
    /// Writes whatever the outbox says is due to the peers linked now.
    func pumpOutbox() async {
        guard state == .running, outbox.count > 0 else { return }
        let before = outbox.entries.mapValues(\.attempts)
        let due = outbox.due(at: clock.uptime(), reachable: Set(directory.peers.keys))
        for frame in due {
            guard let peer = frame.targetNumber else { continue }
            await transport.send(frame, to: peer)
            if before[frame.messageId] == 0 {
                try? await store.setDelivery(.sent, for: frame.messageId)
                emit(.delivery(frame.messageId, room: .direct(peer), .sent))
            } else {
                counters.dmRetries += 1
            }
        }
    }

    /// Queues a composed DM: stored (delivery "queued") before anything is
    /// written, so a crash right after still delivers it on the next start.
    func enqueue(_ payload: P2PPayload) async throws(NodeError) {
        let message = try! Message(from: payload, localNumber: identity.number)  // composed from validated text
        do {
            try await store.insert(message)
            try await store.setDelivery(.queued, for: message.id)
        } catch { throw .store(error) }
        outbox.enqueue(payload, at: clock.uptime())
        wakeTicker()
    }

    /// The peer declined: its waiting DMs will never be delivered.
    func failOutbox(for peer: NodeNumber) async {
        for id in outbox.drop(peer: peer) {
            try? await store.setDelivery(.failed, for: id)
            emit(.delivery(id, room: .direct(peer), .failed))
        }
    }

    /// Where an outgoing DM stands, or nil for messages not tracked.
    public func deliveryState(of id: MessageID) async -> DeliveryState? {
        try? await store.delivery(of: id)
    }

    /// How many DMs are waiting for an acknowledgement.
    public var pendingDeliveries: Int { outbox.count }
}
