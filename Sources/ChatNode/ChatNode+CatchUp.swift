import ChatCore
import Foundation

/// Catch-up of missed public messages, independent of clocks: each peer
/// numbers the messages it stores in arrival order (`seq`, under a random
/// store `epoch`), and the asker remembers, per peer, the last number it got
/// from that peer (committed with the page). When a peer links up, the node
/// asks it for everything after that number, page by page; a page whose
/// commit fails is asked again. Timestamps only order the display.
///
/// The decisions are values: `CatchUpState` (whom to ask, what a reply
/// means, which peer is next, through `CatchUpRound`) and `CatchUpServing`
/// (what a peer may ask of us). A reply is planned with its step by the
/// pure core (NodeCore+CatchUp.swift). This file only carries them to the
/// store, the transport and the clock, and back.
extension ChatNode {
    // Page sizes, budgets and timeouts: NodeLimits.

    static func catchUpKey(_ peer: NodeNumber) -> String { CatchUpState.key(peer) }

    /// `peer` linked: it joins the catch-up round (asked now, or later).
    func catchUpPeerLinked(_ peer: NodeNumber) async {
        if let ask = catchUp.peerLinked(peer) { await requestCatchUp(ask) }
    }

    /// `peer`'s link went down: what it owed is asked of the next peer.
    func catchUpPeerLeft(_ peer: NodeNumber) async {
        if let ask = catchUp.peerLeft(peer) { await requestCatchUp(ask) }
    }

    /// Asks `ask.peer` for what we missed since the last page we got from it.
    func requestCatchUp(_ ask: CatchUpAsk) async {
        if catchUp.needsStoredCursor(ask.peer) {
            let stored = try? await store.value(forKey: Self.catchUpKey(ask.peer))
            catchUp.restoreCursor(stored.flatMap(CatchUpCursor.init(stored:)), for: ask.peer)
        }
        await sendCatchUp(catchUp.request(for: ask, id: nextMessageID()), to: ask.peer)
    }

    /// Sends `request` (under a fresh id) as the one outstanding for
    /// `peer`, and hands it to the next peer if unanswered in time.
    func sendCatchUp(_ request: CatchUpRequest, to peer: NodeNumber) async {
        let request = catchUp.send(request, to: peer, id: nextMessageID())
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

    /// No reply to request `id` in time: given up (a late reply is still
    /// merged once, without its cursor), and the round asks the next peer.
    private func catchUpTimedOut(_ id: MessageID, from peer: NodeNumber) async {
        guard state == .running, case .gaveUp(let next) = catchUp.timedOut(id, from: peer) else { return }
        counters.catchUpTimeouts += 1
        logger.notice("catch-up: \(peer) did not answer within \(options.catchUpTimeout); asking another peer")
        if let next { await requestCatchUp(next) }
    }

    /// A page was committed: the cursor moves on, and the same peer's next
    /// page, another peer, or nothing follows, as the round decides.
    func adoptCatchUpPage(_ page: CatchUpPage) async {
        counters.catchUpPages += 1
        switch catchUp.adopt(page) {
        case .send(let next, let peer): await sendCatchUp(next, to: peer)
        case .ask(let ask): await requestCatchUp(ask)
        case .none: break
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
        guard state == .running, directory[peer] != nil, catchUp.isOutstanding(request, for: peer) else { return }
        await sendCatchUp(request, to: peer)
    }

    /// Answers a history request from `peer`, within its rate budget.
    func answerCatchUp(_ request: P2PPayload, from peer: NodeNumber) async {
        switch catchUpServing.admit(request, from: peer, at: clock.uptime()) {
        case .answer:
            break
        case .deferred(let wait):
            counters.catchUpDeferred += 1
            Task { [weak self, clock] in
                try? await clock.sleep(for: wait)
                await self?.answerDeferredCatchUp(from: peer)
            }
            return
        case .replaced:
            counters.catchUpDeferred += 1
            counters.catchUpRefused += 1
            return
        }
        let limit = CatchUpServing.pageLimit(asked: request.limit)
        let rows: [(seq: Int64, message: Message)]
        let start: Int64
        do {
            if let after = CatchUpServing.start(after: request.catchUp, epoch: store.epoch) {
                start = after
            } else {
                // First contact, or the asker knew an earlier store of ours.
                start = CatchUpServing.firstContactStart(lastSeq: try await store.lastSeq())
            }
            rows = try await store.publicMessages(afterSeq: start, limit: limit + 1)
        } catch {
            logger.error("catch-up for \(peer) failed: \(error)")
            return
        }
        let relayable = await relayable(rows.prefix(limit).map(\.message), to: peer)
        let page = CatchUpServing.page(rows, limit: limit, start: start, relayable: relayable)
        var reply = P2PPayload(
            type: .historyReply, messageId: nextMessageID(),
            senderNumber: identity.number, senderNickname: identity.nickname, senderStage: identity.stage,
            timestamp: clock.nowMillis(), targetNumber: peer, refId: request.messageId)
        reply.messages = page.frames
        reply.more = page.more
        reply.catchUp = CatchUpCursor(epoch: store.epoch, seq: page.last)
        await transport.send(reply, to: peer)
    }

    private func answerDeferredCatchUp(from peer: NodeNumber) async {
        guard let request = catchUpServing.takeDeferred(from: peer), directory[peer] != nil, state == .running else { return }
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
