import ChatCore
import ChatStore

/// Group commit of received chat messages.
///
/// The pump only appends transport events to `inbox`; one drainer task
/// handles them in arrival order. Chat frames at the front of the inbox are
/// taken together, routed, and stored in one transaction (one commit, so one
/// fsync with `.full` durability), and only then shown and acknowledged: "ack
/// after stored" holds per batch. While a batch commits, the node is free
/// and the pump keeps filling the inbox, so the next batch is whatever
/// arrived meanwhile: one message alone commits at once (no added wait),
/// a flood commits in large batches. Any other event ends a run and is
/// handled on its own, after the run, so events keep their order.
extension ChatNode {
    /// Most chat frames routed and committed together.
    static let maxCommitBatch = 1024

    /// Takes one event from the transport; starts the drainer if idle.
    func accept(_ event: TransportEvent) {
        inbox.append(event)
        guard drainer == nil else { return }
        drainer = Task { await self.drainInbox() }
    }

    private func drainInbox() async {
        while !inbox.isEmpty {
            if let event = inbox.takeSingle() {
                await handle(event)
            } else {
                await receive(inbox.takeChatFrames(limit: Self.maxCommitBatch))
            }
        }
        drainer = nil
    }

    /// What became of one chat frame of a batch.
    private enum Step {
        /// Stored before (a replay, a retry whose ack was lost).
        case stored(P2PPayload, from: NodeNumber)
        case routed(P2PPayload, from: NodeNumber, MessageRouter.Result)
    }

    /// Receives a run of chat frames: duplicates checked against the store
    /// in one call, routed in order, their messages stored in one
    /// transaction, then reported and acknowledged in order.
    func receive(_ frames: [(payload: P2PPayload, peer: NodeNumber)]) async {
        let frames = admitLive(frames)
        guard !frames.isEmpty else { return }
        let now = clock.nowMillis()
        var payloads: [P2PPayload] = []
        payloads.reserveCapacity(frames.count)
        for (incoming, peer) in frames {
            var payload = incoming
            counters.receivedByType[payload.type.name, default: 0] += 1
            lastHeard[peer] = now
            // A clock far ahead must not pin a message below everything else.
            if payload.timestamp > now + Self.maxClockSkew {
                payload.timestamp = now
                counters.clampedTimestamps += 1
            }
            payloads.append(payload)
        }
        let stored = (try? await store.storedIDs(among: payloads.map(\.messageId))) ?? []
        var steps: [Step] = []
        steps.reserveCapacity(frames.count)
        var fresh: [Message] = []
        for (payload, (_, peer)) in zip(payloads, frames) {
            if stored.contains(payload.messageId), payload.senderNumber == peer {
                counters.duplicates += 1
                steps.append(.stored(payload, from: peer))
                continue
            }
            let result = router.route(payload, from: peer, at: now)
            for case .message(let message) in result.events { fresh.append(message) }
            steps.append(.routed(payload, from: peer, result))
        }
        let added = await persist(fresh)
        for step in steps {
            switch step {
            case .stored(let payload, let peer):
                // Only acknowledge again, so the sender stops retrying.
                if payload.type.isDirect { await acknowledge(payload, to: peer) }
            case .routed(let payload, let peer, let result):
                for event in result.events {
                    if case .message(let message) = event {
                        // Not stored (an error, or a copy stored meanwhile): not
                        // shown, not acknowledged; the sender retries.
                        guard added.contains(message.id) else { continue }
                        report(event)
                        if message.room.peer != nil && message.senderNumber == peer { await acknowledge(payload, to: peer) }
                    } else {
                        await apply(event, from: peer, payload: payload)
                    }
                }
                for reply in result.replies { await transport.send(reply, to: peer) }
            }
        }
    }

    /// Stores `messages` in one transaction and moves the read marker of
    /// the room being read; returns the ids that were new (none on error).
    private func persist(_ messages: [Message]) async -> Set<MessageID> {
        guard !messages.isEmpty else { return [] }
        do {
            let added = try await store.insertNew(messages)
            if let room = activeRoom,
               let newest = messages.filter({ $0.room == room && added.contains($0.id) }).map(\.cursor).max() {
                try await store.markRead(room, upTo: newest)
            }
            return added
        } catch {
            logger.error("could not store \(messages.count) messages (\(messages[0].id)...): \(error)")
            return []
        }
    }
}
