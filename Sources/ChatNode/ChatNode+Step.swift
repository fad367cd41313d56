import ChatCore

/// One step: take, look up, plan (the pure core: `NodeCore.plan`), commit,
/// adopt (`NodeCore.adopt`), apply; overlapped with its neighbours (see
/// ChatNode+Pipeline.swift). The actor only carries the plan to the store
/// and back.
///
/// While step N's commit runs on the store's thread, the frames that came
/// in while N was planned are planned as step N+1 on N's copy of the
/// router, as if N were committed: N's ids count as stored, its quota use
/// as used, its DMs as queued. Their lookup is queued on the store before
/// N's commit (after it, it would wait for the fsync). If N's commit
/// fails, that plan is dropped and N+1 is looked up and planned again on
/// the router as it is, so N leaves no trace and N+1 is stored normally.
///
/// N-1's effects (events, acks, sends, answers: after its commit, in order)
/// are performed while N commits, before N+1 is planned; then the input of
/// N+2 is taken and looked up as soon as N's commit returns. So the store's
/// thread runs lookup, commit, lookup, commit... while the node does the
/// rest: per step the node waits for max(commit, effects + plan + take).
extension ChatNode {
    /// The frames at the front of the inbox and the waiting commands, or
    /// nil if there are none. `following`: for a step planned on top of
    /// one not yet committed, which a peer change at the front stops (it is
    /// handled alone, after that step).
    func takeInput(following: Bool = false) async -> StepInput? {
        guard var input = await take(following: following) else { return nil }
        await lookUp(&input)
        return input
    }

    /// `takeInput` without the lookup.
    func take(following: Bool) async -> StepInput? {
        if following, !inbox.isEmpty, !inbox.startsWithFrame { return nil }
        let received = inbox.takeReceived(limit: options.commitBatch)
        let taken = Array(commands.prefix(options.commitBatch))
        commands.removeFirst(taken.count)
        if received.isEmpty && taken.isEmpty { return nil }
        await releaseBackpressure()
        return prepare(received, commands: taken)
    }

    /// Takes the input of the step after next while this step commits; its
    /// lookup runs as soon as `commit` returns: after this step's commit,
    /// ahead of the next step's, so the next iteration finds it done.
    func prefetch(after commit: Task<Result<StoreCommitResult, StoreError>, Never>) async -> PrefetchedInput? {
        guard let input = await take(following: true) else { return nil }
        let store = self.store, ids = input.ids, authors = input.authors
        let lookup = Task.detached { () -> StoreLookup? in
            // Exactly the store with this step's outcome and without the next step's.
            _ = await commit.value
            if ids.isEmpty && authors.isEmpty { return StoreLookup() }
            return try? await store.lookUp(ids: ids, authors: authors)
        }
        return PrefetchedInput(input: input, lookup: lookup)
    }

    /// A prefetched input with its lookup's answer.
    func finish(_ prefetched: PrefetchedInput) async -> StepInput {
        var input = prefetched.input
        input.take(await prefetched.lookup.value)
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
        var authors = Set<NodeNumber>()
        // Counted per run of one type and peer, not per frame (a flood is one run).
        var run: (type: PayloadType, peer: NodeNumber, count: Int)?
        for (incoming, peer) in admitted {
            if let current = run, current.type == incoming.type, current.peer == peer {
                run!.count += 1
            } else {
                if let done = run { countReceived(done.type, from: done.peer, done.count, at: now) }
                run = (incoming.type, peer, 1)
            }
            var payload = incoming
            if payload.type.carriesChatText {
                Self.clampTimestamp(&payload, now: now, counters: &counters)
                ids.append(payload.messageId)
            }
            if let entries = payload.messages { ids.append(contentsOf: entries.map(\.messageId)) }
            quotaAuthors(of: payload, into: &authors)
            frames.append((payload, peer))
        }
        if let done = run { countReceived(done.type, from: done.peer, done.count, at: now) }
        return StepInput(frames: frames, commands: commands, now: now, ids: ids, authors: Array(authors), notices: notices)
    }

    private func countReceived(_ type: PayloadType, from peer: NodeNumber, _ count: Int, at now: Int64) {
        counters.receivedByType[type.counterKey, default: 0] += count
        lastHeard[peer] = now
    }

    /// Duplicates and quota usage, one store call (`StepInput.take`).
    func lookUp(_ input: inout StepInput) async {
        guard !input.ids.isEmpty || !input.authors.isEmpty else { return }
        input.take(try? await store.lookUp(ids: input.ids, authors: input.authors))
    }

    /// Reports the input's refusals once, in its turn.
    func emitNotices(_ input: inout StepInput) {
        for notice in input.notices { emit(notice) }
        input.notices = []
    }

    /// Commits `step`. Meanwhile: performs the effects of the step before
    /// it (`earlier`, committed), plans the next step on top of this one,
    /// and takes the input of the one after (looked up once this commit
    /// returns). On success adopts the step's router copy; on failure drops
    /// it and answers its commands with the error. Returns the next step
    /// (planned on top of this one, or after a failure on the router as it
    /// is), this step's effects still to perform if there is a next step
    /// (without one they are performed before returning), and the input
    /// taken for the step after next (only with a next step).
    func commitAndApply(
        _ step: consuming PlannedStep, after earlier: AppliedStep?, prefetched: PrefetchedInput?
    ) async -> (PlannedStep?, AppliedStep?, PrefetchedInput?) {
        let plan = step.plan
        // Keys seen and not yet written go first if this step stores from them.
        await flushKeys(before: plan.changes.messages)
        var input = step.input
        let scratch = step.scratch
        _ = consume step  // the adopted copy must not share its rooms' buffers (settle)
        core.stepInFlight()
        // Looked up before this step's commit is queued (after it, the lookup would wait for it).
        let following: StepInput?
        if let prefetched { following = await finish(prefetched) } else { following = await takeInput(following: true) }
        let changes = plan.changes
        let store = self.store
        var next: PlannedStep?
        var ahead: PrefetchedInput?
        let outcome: Result<StoreCommitResult, StoreError>
        if following == nil && earlier == nil {
            // Nothing to overlap with this commit (a lone message): awaited
            // in place, it saves a task and the wake-up of its completion.
            emitNotices(&input)
            outcome = await Self.commit(changes, to: store)
        } else {
            // A task, not `async let`: the prefetched lookup waits for it too.
            let committing = Task.detached { await Self.commit(changes, to: store) }
            if let earlier { await perform(earlier) }
            // Refusals found while this step was taken, after the step before's events.
            emitNotices(&input)
            if let following {
                next = carry(core.assuming(scratch).plan(following, after: plan))
                ahead = await prefetch(after: committing)
            }
            outcome = await committing.value
        }
        // Router changes made on the actor since this step's copy was taken
        // (a room activated) apply to the copies too, before adoption.
        let outside = core.takeChangesInFlight(stillInFlight: next != nil)
        switch outcome {
        case .success(let result):
            storeHealthy()
            core.adopt(consume scratch, plan: plan, added: result.added.count, outside: outside)
            if next != nil {
                for change in outside { _ = change.apply(to: &next!.scratch) }
            }
            let applied = AppliedStep(effects: plan.effects + core.forgetAgedOut(result, next: &next), added: result.added)
            guard next != nil else {
                await perform(applied)
                return (nil, nil, nil)
            }
            return (next, applied, ahead)
        case .failure(let error):
            storeFailed(error, what: "\(plan.changes.messages.count) messages")
            for command in plan.commands { command.resume(.failure(.store(error))) }
            for page in plan.catchUpPages { retryCatchUp(page.request, from: page.peer) }
            recoverLostPublicMessages(plan)
            guard let dropped = next else { return (nil, nil, nil) }
            // Planned as if this step were stored: plan it again as things are.
            var input = dropped.input
            // Commands refused while planning were answered then; the rest wait.
            input.commands = dropped.plan.commands
            await lookUp(&input)
            core.stepInFlight()
            // `ahead` was looked up after this commit failed: right for a
            // step planned on top of the re-planned one. Its file frames
            // were handed over when it was first planned.
            return (carry(core.plan(input), filesHandedOver: true), nil, ahead)
        }
    }

    /// A step just planned (by the pure core): the core notes it heads for
    /// the store, and what the plan hands over at once is handed over.
    /// `filesHandedOver`: planned again after the step under it failed,
    /// its file frames already went to `FileTransfers`.
    func carry(_ step: consuming PlannedStep, filesHandedOver: Bool = false) -> PlannedStep {
        core.planned(step.plan)
        for notice in step.plan.notices {
            switch notice {
            case .refused(let command, let error):
                command.resume(.failure(error))
            case .file(let frame, let peer, let dmState):
                if !filesHandedOver { fileNotices?.yield(.frame(frame, from: peer, dmState: dmState)) }
            }
        }
        step.plan.notices = []
        return step
    }

    /// Performs a committed step's effects, in order.
    func perform(_ applied: AppliedStep) async {
        if await performAll(applied.effects, added: applied.added) { await pumpOutbox() }
    }

    /// The commit, off the actor (its own task while the next step is planned).
    nonisolated static func commit(_ changes: StoreChanges, to store: any ChatStoring) async -> Result<StoreCommitResult, StoreError> {
        // Acks, replies, answers: nothing to write.
        if changes.isEmpty { return .success(StoreCommitResult()) }
        do { return .success(try await store.commit(changes)) } catch { return .failure(error) }
    }
}
