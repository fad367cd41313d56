import ChatCore
import ChatStore

/// One step: take, look up, plan, commit, apply; and the next step planned
/// while this one commits (see ChatNode+Pipeline.swift).
///
/// While step N's commit runs on the store's thread, the frames that came
/// in while N was planned are planned as step N+1 on N's copy of the
/// router, as if N were committed: N's ids count as stored, its quota use
/// as used, its DMs as queued. Their lookup is queued on the store before
/// N's commit (after it, it would wait for the fsync). If N's commit
/// fails, that plan is dropped and N+1 is looked up and planned again on
/// the router as it is, so N leaves no trace and N+1 is stored normally.
extension ChatNode {
    /// The frames at the front of the inbox and the waiting commands, or
    /// nil if there are none. `following`: for a step planned on top of
    /// one not yet committed, which a peer change at the front stops (it is
    /// handled alone, after that step).
    func takeInput(following: Bool = false) async -> StepInput? {
        if following, !inbox.isEmpty, !inbox.startsWithFrame { return nil }
        let received = inbox.takeReceived(limit: NodeLimits.maxCommitBatch)
        let taken = Array(commands.prefix(NodeLimits.maxCommitBatch))
        commands.removeFirst(taken.count)
        if received.isEmpty && taken.isEmpty { return nil }
        await releaseBackpressure()
        var input = prepare(received, commands: taken)
        await lookUp(&input)
        return input
    }

    /// Checks signatures (on the frames as sent, before the clamp), clamps
    /// timestamps, and lists what to look up.
    private func prepare(_ received: [ReceivedFrame], commands: [PendingCommand]) -> StepInput {
        var notices: [NodeEvent] = []
        let admitted = admitLive(received, notices: &notices)
        let now = clock.nowMillis()
        var frames: [ReceivedFrame] = []
        frames.reserveCapacity(admitted.count)
        var ids: [MessageID] = []
        ids.reserveCapacity(admitted.count)
        for (incoming, peer) in admitted {
            counters.receivedByType[incoming.type.name, default: 0] += 1
            lastHeard[peer] = now
            var payload = incoming
            if payload.type.carriesChatText {
                Self.clampTimestamp(&payload, now: now, counters: &counters)
                ids.append(payload.messageId)
            }
            if let entries = payload.messages { ids.append(contentsOf: entries.map(\.messageId)) }
            frames.append((payload, peer))
        }
        return StepInput(frames: frames, commands: commands, now: now, ids: ids,
                         authors: quotaAuthors(frames.map(\.payload)), notices: notices)
    }

    /// Duplicates and quota usage, one store call. Unreadable counts as
    /// nothing stored and no usage: the commit will most likely fail too.
    func lookUp(_ input: inout StepInput) async {
        guard !input.ids.isEmpty || !input.authors.isEmpty else { return }
        let found = (try? await store.lookUp(ids: input.ids, authors: input.authors)) ?? StoreLookup()
        input.stored = found.stored
        input.usage = found.usage
    }

    /// Reports the input's refusals once, in its turn.
    func emitNotices(_ input: inout StepInput) {
        for notice in input.notices { emit(notice) }
        input.notices = []
    }

    /// Plans `input` on a copy of `base`; `prior` is the plan `base` comes
    /// from when that plan's commit has not returned yet.
    func plan(_ input: StepInput, on base: MessageRouter, after prior: NodePlan? = nil) async -> PlannedStep {
        var scratch = base
        var plan = NodePlan()
        var stored = input.stored
        var usage = input.usage
        if let prior {
            // As if `prior` were committed (its lookup came before that commit).
            for message in prior.changes.messages { stored.insert(message.id) }
            for author in input.authors {
                guard let end = prior.authorUsage[author] else { continue }
                let start = prior.startUsage[author] ?? StorageUsage()
                let had = usage[author] ?? StorageUsage()
                usage[author] = StorageUsage(messages: had.messages + end.messages - start.messages,
                                             bytes: had.bytes + end.bytes - start.bytes)
            }
            plan.queuedBefore = prior.queued
        }
        plan.authorUsage = usage
        plan.startUsage = usage
        for (payload, peer) in input.frames {
            planReceive(payload, from: peer, stored: stored, now: input.now, on: &scratch, into: &plan)
        }
        await planCommands(input.commands, now: input.now, on: &scratch, into: &plan)
        return PlannedStep(plan: plan, scratch: scratch, input: input)
    }

    /// Commits `step`, planning the next one meanwhile. On success adopts
    /// the step's router copy and performs its effects; on failure drops
    /// both and answers its commands with the error. Returns the next step,
    /// planned on top of this one (or, after a failure, on the router as it
    /// is), or nil if nothing was waiting.
    func commitAndApply(_ step: PlannedStep) async -> PlannedStep? {
        var step = step
        if routerReplay == nil { routerReplay = [] }
        let following = await takeInput(following: true)
        let changes = step.plan.changes
        let store = self.store
        async let committing = Self.commit(changes, to: store)
        var next: PlannedStep?
        if let following { next = await plan(following, on: step.scratch, after: step.plan) }
        let outcome = await committing
        // Router changes made on the actor since this step's copy was taken
        // (a room activated) apply to the copies too, before adoption.
        let replay = routerReplay ?? []
        routerReplay = next == nil ? nil : []
        switch outcome {
        case .success(let result):
            storeHealthy()
            for change in replay { _ = change(&step.scratch) }
            router = step.scratch
            if next != nil {
                for change in replay { _ = change(&next!.scratch) }
            }
            // Each room's unread count is reported once, as it is after the step.
            let unreadShown = Self.lastUnreadChanges(in: step.plan.effects)
            let effects = step.plan.effects.enumerated().compactMap { index, effect -> NodeEffect? in
                if case .report(.unreadChanged) = effect, !unreadShown.contains(index) { return nil }
                return effect
            }
            if await performAll(effects, added: result.added) { await pumpOutbox() }
            if next != nil { emitNotices(&next!.input) }
            return next
        case .failure(let error):
            let failed = step.plan
            storeFailed(error, what: "\(failed.changes.messages.count) messages")
            for command in failed.commands { command.resume(.failure(.store(error))) }
            for page in failed.catchUpPages { retryCatchUp(page.request, from: page.peer) }
            recoverLostPublicMessages(failed)
            guard let dropped = next else { return nil }
            // Planned as if this step were stored: plan it again as things are.
            var input = dropped.input
            // Commands refused while planning were answered then; the rest wait.
            input.commands = dropped.plan.commands
            emitNotices(&input)
            await lookUp(&input)
            routerReplay = []
            return await plan(input, on: router)
        }
    }

    /// The commit, off the actor (a child task while the next step is planned).
    nonisolated static func commit(_ changes: StoreChanges, to store: any ChatStoring) async -> Result<StoreCommitResult, StoreError> {
        // Acks, replies, answers: nothing to write.
        if changes.isEmpty { return .success(StoreCommitResult()) }
        do { return .success(try await store.commit(changes)) } catch { return .failure(error) }
    }
}
