import ChatCore
import Foundation

/// One catch-up request in flight to a peer.
struct CatchUpRequest: Sendable {
    var id: MessageID
    /// Where to continue in the peer's numbering; nil on first contact.
    var cursor: CatchUpCursor?
    /// Messages asked for (a full page, or a probe's few).
    var limit = NodeLimits.catchUpPageSize
    /// Its reply arrived (its page may still be committing): no timeout.
    var answered = false
}

/// Catch-up of missed public messages, independent of clocks: each peer
/// numbers the messages it stores in arrival order (`seq`, under a random
/// store `epoch`), and the asker remembers, per peer, the last number it got
/// from that peer (committed with the page). When a peer links up, the node
/// asks it for everything after that number, page by page; a page whose
/// commit fails is asked again. Timestamps only order the display. Which
/// peer is asked, when several could answer, is `CatchUpRound`'s choice.
extension ChatNode {
    // Page sizes, budgets and timeouts: NodeLimits.

    static func catchUpKey(_ peer: NodeNumber) -> String { "catchup.\(peer.rawValue)" }

    /// `peer` linked: it joins the catch-up round (asked now, or later).
    func catchUpPeerLinked(_ peer: NodeNumber) async {
        if let ask = catchUpRound.peerLinked(peer) { await requestCatchUp(ask) }
    }

    /// `peer`'s link went down: what it owed is asked of the next peer.
    func catchUpPeerLeft(_ peer: NodeNumber) async {
        catchUpOutstanding[peer] = nil
        if let ask = catchUpRound.peerLeft(peer) { await requestCatchUp(ask) }
    }

    /// Asks `ask.peer` for what we missed since the last page we got from it.
    func requestCatchUp(_ ask: CatchUpAsk) async {
        let peer = ask.peer
        var cursor = catchUpCursors[peer]
        if cursor == nil, let stored = try? await store.value(forKey: Self.catchUpKey(peer)) {
            cursor = CatchUpCursor(stored: stored)
            catchUpCursors[peer] = cursor
        }
        let limit = ask.mode == .full ? NodeLimits.catchUpPageSize : NodeLimits.catchUpProbeSize
        await sendCatchUp(CatchUpRequest(id: nextMessageID(), cursor: cursor, limit: limit), to: peer)
    }

    /// Sends `request` (under a fresh id) as the one outstanding for
    /// `peer`, and hands it to the next peer if unanswered in time.
    func sendCatchUp(_ request: CatchUpRequest, to peer: NodeNumber) async {
        var request = request
        request.id = nextMessageID()
        request.answered = false
        catchUpOutstanding[peer] = request
        var frame = P2PPayload(
            type: .historyRequest, messageId: request.id,
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis())
        frame.catchUp = request.cursor ?? CatchUpCursor(epoch: "", seq: 0)
        frame.limit = request.limit
        let id = request.id
        let timeout = options.catchUpTimeout
        Task { [weak self, clock] in
            try? await clock.sleep(for: timeout)
            await self?.catchUpTimedOut(id, from: peer)
        }
        await transport.send(frame, to: peer)
    }

    /// No reply to request `id` in time: given up (a late reply is refused
    /// as unsolicited), and the round asks the next peer.
    private func catchUpTimedOut(_ id: MessageID, from peer: NodeNumber) async {
        guard state == .running, let request = catchUpOutstanding[peer], request.id == id, !request.answered else { return }
        catchUpOutstanding[peer] = nil
        counters.catchUpTimeouts += 1
        logger.notice("catch-up: \(peer) did not answer within \(options.catchUpTimeout); asking another peer")
        if let ask = catchUpRound.timedOut(peer) { await requestCatchUp(ask) }
    }

    /// A page from `peer` was merged: the same peer's next page, another
    /// peer, or nothing, as the round decides.
    func catchUpPageMerged(from peer: NodeNumber, fresh: Int, next: CatchUpRequest?) async {
        switch catchUpRound.pageMerged(from: peer, fresh: fresh, more: next != nil) {
        case .nextPage(let mode):
            guard var next else { return }
            next.limit = mode == .full ? NodeLimits.catchUpPageSize : NodeLimits.catchUpProbeSize
            await sendCatchUp(next, to: peer)
        case .ask(let ask):
            await requestCatchUp(ask)
        case .stop:
            break
        }
    }

    /// The page for `request` could not be stored: ask again shortly, if
    /// it is still the one outstanding and the peer still linked.
    func retryCatchUp(_ request: CatchUpRequest, from peer: NodeNumber) {
        Task { [weak self, clock] in
            try? await clock.sleep(for: NodeLimits.catchUpRetry)
            await self?.resendCatchUp(request, to: peer)
        }
    }

    private func resendCatchUp(_ request: CatchUpRequest, to peer: NodeNumber) async {
        guard state == .running, directory[peer] != nil, catchUpOutstanding[peer]?.id == request.id else { return }
        await sendCatchUp(request, to: peer)
    }

    /// Plans the merge of a history reply: valid public messages we do not
    /// hold join the room and the step's commit, with the peer's cursor.
    func planCatchUpReply(
        _ reply: P2PPayload, from peer: NodeNumber, stored: Set<MessageID>, now: Int64,
        on scratch: inout MessageRouter, into plan: inout NodePlan
    ) {
        guard let outstanding = catchUpOutstanding[peer], reply.refId == outstanding.id,
              !plan.catchUpPages.contains(where: { $0.peer == peer }), !plan.catchUpAnsweredBefore.contains(peer) else {
            plan.counted.catchUpUnsolicited += 1
            logger.notice("refused a history reply from \(peer) that answers no request")
            return
        }
        // Answered: its timeout no longer applies, even while the page commits.
        catchUpOutstanding[peer]?.answered = true
        var fresh = 0
        var seen = Set<MessageID>()
        for var frame in reply.messages ?? [] {
            // Judged as the author sent it, before the clamp changes it.
            guard admitRelayed(frame, from: peer, stored: stored, counting: &plan.counted) else { continue }
            Self.clampTimestamp(&frame, now: now, counters: &plan.counted)
            guard frame.type == .publicMessage, let message = try? Message(from: frame, localNumber: identity.number),
                  seen.insert(message.id).inserted else {
                plan.counted.catchUpInvalid += 1
                continue
            }
            if stored.contains(message.id) { continue }
            guard admitToStorage(id: message.id, author: message.senderNumber, nickname: message.senderNickname,
                                 bytes: StorageUsage.bytes(of: message), room: message.room, now: now,
                                 on: scratch, into: &plan) else { continue }
            let events = scratch.publicChat.add(message)
            if events.contains(where: { if case .message = $0 { true } else { false } }) {
                plan.changes.messages.append(message)
                fresh += 1
            }
            for event in events { plan.report(event) }
        }
        var cursor = reply.catchUp
        if let given = cursor, given.epoch.utf8.count > CatchUpCursor.maxEpochBytes || given.seq < 0 { cursor = nil }
        if let cursor { plan.changes.settings[Self.catchUpKey(peer)] = cursor.stored }
        let next = reply.more == true && cursor != nil ? CatchUpRequest(id: outstanding.id, cursor: cursor, limit: outstanding.limit) : nil
        plan.catchUpPages.append((peer, outstanding))
        plan.effects.append(.caughtUp(from: peer, count: fresh, cursor: cursor, next: next))
    }

    /// Answers a history request from `peer`, within its rate budget.
    func answerCatchUp(_ request: P2PPayload, from peer: NodeNumber) async {
        var budget = catchUpBudget[peer] ?? TokenBucket(capacity: NodeLimits.catchUpBurst, perSecond: NodeLimits.catchUpRefillPerSecond)
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
                Task { [weak self, clock] in
                    try? await clock.sleep(for: .seconds(1 / NodeLimits.catchUpRefillPerSecond))
                    await self?.answerDeferredCatchUp(from: peer)
                }
            }
            return
        }
        let limit = max(1, min(request.limit ?? NodeLimits.catchUpPageSize, NodeLimits.catchUpPageSize))
        let rows: [(seq: Int64, message: Message)]
        let start: Int64
        do {
            let asked = request.catchUp
            if let asked, asked.epoch == store.epoch, asked.seq >= 0 {
                start = asked.seq
            } else {
                // First contact, or the asker knew an earlier store of ours.
                start = max(0, try await store.lastSeq() - NodeLimits.catchUpFirstContact)
            }
            rows = try await store.publicMessages(afterSeq: start, limit: limit + 1)
        } catch {
            logger.error("catch-up for \(peer) failed: \(error)")
            return
        }
        var frames: [P2PPayload] = []
        var bytes = 512
        var last = start
        var more = rows.count > limit
        let page = rows.prefix(limit)
        let relayable = await relayable(page.map(\.message), to: peer)
        for (seq, message) in page {
            // A message that failed its check is passed over; the cursor
            // still moves past it, so the asker is not stuck on it.
            guard relayable.contains(message.id) else {
                last = seq
                continue
            }
            let frame = Self.relayPayload(for: message)
            let size = P2PFrameCodec.encode(frame).count
            if bytes + size > NodeLimits.catchUpReplyBytes {
                more = true
                break
            }
            bytes += size
            frames.append(frame)
            last = seq
        }
        var reply = P2PPayload(
            type: .historyReply, messageId: nextMessageID(),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis(), targetNumber: peer, refId: request.messageId)
        reply.messages = frames
        reply.more = more
        reply.catchUp = CatchUpCursor(epoch: store.epoch, seq: last)
        await transport.send(reply, to: peer)
    }

    private func answerDeferredCatchUp(from peer: NodeNumber) async {
        guard let request = deferredCatchUp.removeValue(forKey: peer), directory[peer] != nil, state == .running else { return }
        await answerCatchUp(request, from: peer)
    }

    /// The public frame a stored message arrived as.
    static func payload(for message: Message) -> P2PPayload {
        P2PPayload(
            type: .publicMessage, messageId: message.id, senderNumber: message.senderNumber,
            senderNickname: message.senderNickname, senderStage: message.senderStage, content: message.content,
            timestamp: message.signedTimestamp ?? message.timestamp, automatic: message.automatic ? true : nil)
    }
}
