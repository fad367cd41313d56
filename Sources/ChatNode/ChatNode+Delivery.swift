import ChatCore

/// The outbox: every outgoing DM is stored first (with its "queued" state,
/// in one transaction), then written to its peer's link until the peer
/// acknowledges it, across link drops and restarts of either side.
/// Delivery only moves forward: queued < sent < delivered, failed final,
/// in the store (see `ChatStore.setDelivery`) and in the events.
extension ChatNode {
    /// Writes whatever the outbox says is due to the peers linked now (and
    /// those the transport reaches without a link); the first sends of a
    /// round are marked "sent" in one commit.
    func pumpOutbox() async {
        guard state == .running, outbox.count > 0 else { return }
        var reachable = Set(directory.peers.keys)
        // Peers not linked (outside a large LAN's overlay view): the
        // transport dials them on demand (their join then flushes this) or
        // names those it reaches sealed through other nodes.
        let away = outbox.peers.subtracting(reachable)
        if !away.isEmpty { reachable.formUnion(await transport.reach(away)) }
        let due = outbox.dueFrames(at: clock.uptime(), reachable: reachable)
        var firsts = StoreChanges()
        for (frame, first) in due {
            guard let peer = frame.targetNumber else { continue }
            await transport.send(frame, to: peer)
            if first {
                firsts.setDelivery(.sent, for: frame.messageId)
            } else {
                counters.dmRetries += 1
            }
        }
        guard !firsts.isEmpty else { return }
        do {
            _ = try await store.commit(firsts)
            storeHealthy()
        } catch {
            storeFailed(error, what: "delivery states")
            return
        }
        for id in firsts.deliveries.keys.sorted() {
            // Acknowledged or failed meanwhile: "sent" would go backwards.
            guard let entry = outbox.entries[id], let peer = entry.payload.targetNumber else { continue }
            emit(.delivery(id, room: .direct(peer), .sent))
        }
    }

    /// Where an outgoing DM stands, or nil for messages not tracked.
    public func deliveryState(of id: MessageID) async -> DeliveryState? {
        try? await store.delivery(of: id)
    }

    /// The delivery state of each own DM on `page` (a page of at most a
    /// few dozen messages: one lookup each), so history shows a held,
    /// queued or failed DM as such after a restart.
    public func deliveryStates(in page: HistoryPage) async -> [MessageID: DeliveryState] {
        guard page.room.peer != nil else { return [:] }
        var states: [MessageID: DeliveryState] = [:]
        for message in page.messages where message.senderNumber == identity.number {
            if let state = try? await store.delivery(of: message.id) { states[message.id] = state }
        }
        return states
    }

    /// How many DMs are waiting for an acknowledgement.
    public var pendingDeliveries: Int { outbox.count }
}
