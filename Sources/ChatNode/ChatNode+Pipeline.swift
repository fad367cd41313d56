import ChatCore

/// Plan, commit once, then apply.
///
/// The pump only appends transport events to `inbox`, and commands only
/// append to `commands`; one drainer task takes them in order. Frames at
/// the front of the inbox and the waiting commands are planned together on
/// a copy of the router (`NodePlan`), committed in one transaction (one
/// fsync with `.full` durability), and only after the commit returns does
/// the node adopt the copy, report events, acknowledge, send, and answer
/// the commands. A failed commit changes nothing: ids stay unseen, so the
/// sender's retry is stored once the cause is gone.
///
/// While a step commits, the node plans the next one (whatever arrived
/// while this one was planned) on top of it, and the pump keeps filling
/// the inbox: one message alone commits at once, a flood commits in large
/// batches with planning and commit overlapped (ChatNode+Step.swift).
/// Peer joins and leaves end a run and are handled on their own, so events
/// keep their order.
extension ChatNode {
    /// Takes one event from the transport; starts the drainer if idle.
    func enqueue(_ event: TransportEvent) async {
        inbox.append(event)
        arrived.set(true)
        startDrainer()
        if !readingPaused, inbox.count >= NodeLimits.inboxHighWater {
            readingPaused = true
            counters.backpressure += 1
            await tellTransport()
        }
    }

    /// Resumes reading once the inbox has drained enough.
    func releaseBackpressure() async {
        guard readingPaused, inbox.count <= NodeLimits.inboxLowWater else { return }
        readingPaused = false
        await tellTransport()
    }

    /// Brings the transport to `readingPaused`, one call at a time, so two
    /// calls in flight cannot land in the wrong order.
    private func tellTransport() async {
        guard !tellingTransport else { return }
        tellingTransport = true
        while transportPaused != readingPaused {
            let paused = readingPaused
            await transport.pauseReading(paused)
            transportPaused = paused
        }
        tellingTransport = false
    }

    /// Identifies the public room's message buffer (diagnostics, tests: it
    /// stays put from step to step unless the room is copied).
    var publicRoomStorageIdentity: Int { router.publicChat.log.storageIdentity }

    /// Transport events and commands waiting for a step (diagnostics, tests).
    public var backlog: (transportEvents: Int, commands: Int) { (inbox.count, commands.count) }

    /// Queues a command for the next step and waits for its commit; a
    /// node not started, or stopped, refuses it (nothing would send it).
    func submit(_ command: NodeCommand) async -> Result<Message?, NodeError> {
        guard state == .running else { return .failure(.notRunning) }
        return await withCheckedContinuation { reply in
            commands.append(PendingCommand(command: command, reply: reply))
            arrived.set(true)
            startDrainer()
        }
    }

    private func startDrainer() {
        guard drainer == nil else { return }
        drainer = Task { await self.drain() }
    }

    private func drain() async {
        var next: PlannedStep?
        // Committed, its effects not yet performed; and the input of the
        // step after `next`: both only while `next` is set.
        var applied: AppliedStep?
        var prefetched: PrefetchedInput?
        while true {
            let step: PlannedStep
            if let planned = next {
                step = planned
                next = nil
            } else {
                if let event = inbox.takeSingle() {
                    await handle(event)
                    continue
                }
                guard var input = await take(following: false) else { break }
                if isLone(input) {
                    // Nothing to overlap: lookup, plan and commit in one store turn.
                    guard let looked = await commitAlone(input) else { continue }
                    input = looked  // something arrived during its lookup: pipelined after all
                } else {
                    await lookUp(&input)
                }
                // Router changes made while this step awaits (signing, the
                // commit) are taken on its copy before it is adopted.
                core.stepInFlight()
                step = carry(core.plan(input))
            }
            // Consumed: a copy left here would share the rooms' buffers with the
            // adopted router, and settling would copy each room per step.
            (next, applied, prefetched) = await commitAndApply(consume step, after: applied, prefetched: prefetched)
        }
        drainer = nil
        await releaseBackpressure()
    }

    /// Performs one effect; returns whether the outbox has new work.
    func perform(_ effect: NodeEffect, added: Set<MessageID>) async -> Bool {
        switch effect {
        case .report(let event):
            if case .message(let message) = event, !added.contains(message.id) { return false }
            if case .dmRequested(_, _, let message) = event, !added.contains(message.id) { return false }
            report(event)
        case .emit(let event):
            emit(event)
        case .send(let frame, let peer):
            await transport.send(frame, to: peer)
        case .broadcast(let frame):
            await transport.broadcast(frame)
        case .acknowledge(let payload, let peer):
            await acknowledge(payload, to: peer)
        case .enqueue(let payload):
            outbox.enqueue(payload, at: clock.uptime())
            wakeTicker()
            return true
        case .enqueueSent(let payload):
            outbox.enqueueSent(payload, at: clock.uptime())
            wakeTicker()
        case .delivered(let id, let peer):
            guard outbox.acknowledge(id) != nil else { return false }
            emit(.delivery(id, room: .direct(peer), .delivered))
        case .failOutbox(let peer):
            for id in outbox.drop(peer: peer) { emit(.delivery(id, room: .direct(peer), .failed)) }
        case .answerCatchUp(let request, let peer):
            await answerCatchUp(request, from: peer)
        case .caughtUp(let page):
            if page.fresh > 0 { emit(.caughtUp(from: page.peer, count: page.fresh)) }
            await adoptCatchUpPage(page)
        case .spread(let frames):
            await transport.spread(frames)
        case .linkLost(let peer):
            linkLostAt[peer] = lastHeard[peer] ?? clock.nowMillis()
        case .quotaReached(let peer, let nickname, let used):
            reportQuota(peer, nickname: nickname, used: used)
        case .heldChanged(let peer, let adding, let removing):
            changeHeld(peer, adding: adding, removing: removing)
        case .resume(let command, let result):
            command.resume(result)
        case .superseded:
            break
        }
        return false
    }

    /// A clock far ahead must not pin a message below everything else:
    /// the one place the documented clamp is applied.
    static func clampTimestamp(_ payload: inout P2PPayload, now: Int64, counters: inout NodeCounters) {
        if payload.timestamp > now + NodeLimits.maxClockSkew {
            payload.signedTimestamp = payload.signedTimestamp ?? payload.timestamp
            payload.timestamp = now
            counters.clampedTimestamps += 1
        }
    }
}
