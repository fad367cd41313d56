import ChatCore
import Foundation

/// Catch-up of missed public messages: when a peer links up (first time or
/// after a gap), ask it for public messages since shortly before the newest
/// one we hold; it answers in bounded pages, rate-limited.
extension ChatNode {
    /// Most messages in one history reply.
    static let catchUpPageSize = 200
    /// A reply is kept under this many bytes of JSON, well inside the line limit.
    static let catchUpReplyBytes = 48 * 1024
    /// A node that holds nothing asks for this many recent messages.
    static let catchUpFreshStart = ChatLimits.roomCapacity
    /// Each peer may make us answer this many requests at once, refilled at
    /// `catchUpRefillPerSecond`.
    static let catchUpBurst = 8.0
    static let catchUpRefillPerSecond = 2.0

    /// Asks `peer` for what we missed. The cursor goes back
    /// `maxClockSkew` before the newest message we hold, or before the
    /// moment our link to this peer dropped if that is earlier, so slightly
    /// skewed clocks and split groups still converge; duplicates are free.
    func requestCatchUp(from peer: NodeNumber, after cursor: HistoryCursor? = nil) async {
        var request = P2PPayload(
            type: .historyRequest, messageId: MessageID(millis: clock.nowMillis(), random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis())
        if let cursor {
            request.sinceTimestamp = cursor.timestamp
            request.sinceId = cursor.id
            request.limit = Self.catchUpPageSize
        } else if let newest = try? await store.newestCursor(.publicRoom) {
            let since = min(newest.timestamp, linkLostAt[peer] ?? .max) - Self.maxClockSkew
            let start = HistoryCursor.justBefore(millis: max(0, since))
            request.sinceTimestamp = start.timestamp
            request.sinceId = start.id
            request.limit = Self.catchUpPageSize
        } else {
            request.limit = Self.catchUpFreshStart  // no cursor: the newest few
        }
        noteCatchUpRequest(request, to: peer)
        await transport.send(request, to: peer)
    }

    /// Answers a history request from `peer`, within its rate budget.
    func answerCatchUp(_ request: P2PPayload, from peer: NodeNumber) async {
        var budget = catchUpBudget[peer] ?? TokenBucket(capacity: Self.catchUpBurst, perSecond: Self.catchUpRefillPerSecond)
        let allowed = budget.take(at: clock.uptime())
        catchUpBudget[peer] = budget
        guard allowed else {
            // Over budget: answer later rather than never, or the asker's
            // page chain would stop here. One request per peer waits; a
            // newer one replaces it (the older is refused).
            counters.catchUpDeferred += 1
            if deferredCatchUp.updateValue(request, forKey: peer) != nil {
                counters.catchUpRefused += 1
            } else {
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(1 / Self.catchUpRefillPerSecond))
                    await self?.answerDeferredCatchUp(from: peer)
                }
            }
            return
        }
        let limit = max(1, min(request.limit ?? Self.catchUpPageSize, Self.catchUpPageSize))
        let messages: [Message]
        do {
            if let since = request.sinceTimestamp {
                let cursor = HistoryCursor(timestamp: since, id: request.sinceId ?? MessageID(uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
                messages = try await store.messages(in: .publicRoom, after: cursor, limit: limit + 1)
            } else {
                messages = try await store.page(.publicRoom, before: nil, limit: limit)
            }
        } catch {
            logger.error("catch-up for \(peer) failed: \(error)")
            return
        }
        var frames: [P2PPayload] = []
        var bytes = 512
        var more = request.sinceTimestamp != nil && messages.count > limit
        for message in messages.prefix(limit) {
            let frame = Self.relayPayload(for: message)
            let size = P2PFrameCodec.encode(frame).count
            if bytes + size > Self.catchUpReplyBytes {
                more = true
                break
            }
            bytes += size
            frames.append(frame)
        }
        var reply = P2PPayload(
            type: .historyReply, messageId: MessageID(millis: clock.nowMillis(), random: (.random(in: 0...UInt64.max), .random(in: 0...UInt64.max))),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis(), targetNumber: peer, refId: request.messageId)
        reply.messages = frames
        reply.more = more
        await transport.send(reply, to: peer)
    }

    private func answerDeferredCatchUp(from peer: NodeNumber) async {
        guard let request = deferredCatchUp.removeValue(forKey: peer), directory[peer] != nil, state == .running else { return }
        await answerCatchUp(request, from: peer)
    }

    /// Merges a history reply: valid public messages we do not hold are
    /// stored in one transaction, added to the room in order, and reported.
    func absorbCatchUp(_ reply: P2PPayload, from peer: NodeNumber) async {
        guard acceptsCatchUpReply(reply, from: peer) else { return }
        let frames = reply.messages ?? []
        let now = clock.nowMillis()
        var fresh: [Message] = []
        var seen = Set<MessageID>()
        let stored = (try? await store.storedIDs(among: frames.map(\.messageId))) ?? []
        for var frame in frames {
            guard admitRelayed(frame, from: peer, stored: stored) else { continue }
            guard frame.type == .publicMessage, let message = try? Message(from: Self.clamped(&frame, now: now), localNumber: identity.number),
                  seen.insert(message.id).inserted else {
                counters.catchUpInvalid += 1
                continue
            }
            if !stored.contains(message.id) { fresh.append(message) }
        }
        if !fresh.isEmpty {
            do {
                try await store.insert(contentsOf: fresh)
            } catch {
                logger.error("could not store catch-up from \(peer): \(error)")
                return
            }
            for message in fresh.sorted(by: Message.displayOrder) {
                for event in router.publicChat.add(message) { report(event) }
            }
            emit(.caughtUp(from: peer, count: fresh.count))
        }
        if reply.more == true, let last = frames.last {
            await requestCatchUp(from: peer, after: HistoryCursor(timestamp: last.timestamp, id: last.messageId))
        }
    }

    static func clamped(_ frame: inout P2PPayload, now: Int64) -> P2PPayload {
        if frame.timestamp > now + maxClockSkew { frame.timestamp = now }
        return frame
    }

    /// The public frame a stored message arrived as.
    static func payload(for message: Message) -> P2PPayload {
        P2PPayload(
            type: .publicMessage, messageId: message.id, senderNumber: message.senderNumber,
            senderNickname: message.senderNickname, senderStage: message.senderStage, content: message.content,
            timestamp: message.timestamp, automatic: message.automatic ? true : nil)
    }
}
