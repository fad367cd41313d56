import ChatCore

/// A step with nothing to overlap: one message (or a few) arrived while
/// the node was idle, and nothing else waits. Its lookup, plan and commit
/// run in one turn of the store (`ChatStoring.lookUpAndCommit`): the step
/// crosses to the store's executor once instead of twice (lookup, then
/// commit), which for a file store is two thread hand-offs fewer per
/// message. The plan is the same pure `NodeCore.plan` on a copy of the
/// core taken here, so memory still follows the disk: plan, commit once,
/// then adopt, emit, acknowledge. A flood keeps the pipelined path
/// (ChatNode+Step.swift), where planning overlaps the commit.
extension ChatNode {
    /// Whether `input`, just taken, can be a lone step: nothing else
    /// waits (so there is nothing to overlap), no key the step may store
    /// from waits to be written first (`flushKeys(before:)` needs the
    /// plan), and it merges no catch-up page (its timeouts stop when it is
    /// planned, which here is only when the commit returns).
    func isLone(_ input: StepInput) -> Bool {
        !inbox.startsWithFrame && commands.isEmpty && keyContinuity.dirtyKeys.isEmpty
            && !input.frames.contains { $0.payload.type == .historyReply }
    }

    /// Plans and commits `input` in one store turn, then adopts and
    /// performs it (or, on failure, leaves no trace), as `commitAndApply`
    /// does for a step with no neighbours.
    func commitAlone(_ taken: StepInput) async {
        var input = taken
        core.stepInFlight()
        // Refusals found while taking, before the step's own events.
        emitNotices(&input)
        let (planned, outcome) = await planAndCommit(input)
        let step = carry(planned)
        let plan = step.plan
        let scratch = step.scratch
        _ = consume step  // the adopted copy must not share its rooms' buffers (settle)
        let outside = core.takeChangesInFlight(stillInFlight: false)
        switch outcome {
        case .success(let result):
            storeHealthy()
            core.adopt(consume scratch, plan: plan, added: result.added.count, outside: outside)
            var none: PlannedStep?
            await perform(AppliedStep(effects: plan.effects + core.forgetAgedOut(result, next: &none), added: result.added))
        case .failure(let error):
            storeFailed(error, what: "\(plan.changes.messages.count) messages")
            for command in plan.commands { command.resume(.failure(.store(error))) }
            recoverLostPublicMessages(plan)
        }
    }

    /// The store's turn: look up, plan on this copy of the core, commit.
    /// Its own function, so the copy (captured by the closure) is released
    /// before the step is adopted.
    private func planAndCommit(_ input: StepInput) async -> (PlannedStep, Result<StoreCommitResult, StoreError>) {
        let core = self.core
        return await store.lookUpAndCommit(ids: input.ids, authors: input.authors) { found in
            var input = input
            input.take(found)
            let step = core.plan(input)
            return (step, step.plan.changes)
        }
    }
}
