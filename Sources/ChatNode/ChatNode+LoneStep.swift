import ChatCore
import Synchronization

/// A step with nothing to overlap: one message (or a few) arrived while
/// the node was idle, and nothing else waits. Its lookup, plan and commit
/// run in one turn of the store (`ChatStoring.lookUpAndCommit`): the step
/// crosses to the store's executor once instead of twice (lookup, then
/// commit), which for a file store is two thread hand-offs fewer per
/// message. The plan is the same pure `NodeCore.plan` on a copy of the
/// core taken here, so memory still follows the disk: plan, commit once,
/// then adopt, emit, acknowledge. If anything arrives while the lookup
/// runs, the planner declines and the step goes the pipelined way
/// (ChatNode+Step.swift), where the next step is planned during its commit.
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
    /// does for a step with no neighbours. Returns the input, looked up,
    /// if something arrived meanwhile and it was not planned: the caller
    /// pipelines it.
    func commitAlone(_ taken: StepInput) async -> StepInput? {
        var input = taken
        core.stepInFlight()
        // Refusals found while taking, before the step's own events.
        emitNotices(&input)
        arrived.set(false)
        var slot: PlannedStep?
        let outcome: Result<StoreCommitResult, StoreError>
        switch await planAndCommit(input) {
        case .lookedUp(let found):
            input.take(found)
            return input
        case .committed(let planned, let result):
            slot = planned
            outcome = result
        }
        // Moved out, so no copy shares the rooms' buffers when the step is adopted (settle).
        let step = carry(slot.take()!)
        let plan = step.plan
        let scratch = step.scratch
        _ = consume step
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
        return nil
    }

    /// The store's turn: look up, then, unless frames or commands arrived
    /// meanwhile (`arrived`), plan on this copy of the core and commit. Its
    /// own function, so the copy (captured by the closure) is released
    /// before the step is adopted.
    private func planAndCommit(_ input: StepInput) async -> StoreTurn<PlannedStep> {
        let core = self.core, arrived = self.arrived
        return await store.lookUpAndCommit(ids: input.ids, authors: input.authors) { found in
            guard !arrived.isSet else { return nil }
            var input = input
            input.take(found)
            let step = core.plan(input)
            return (step, step.plan.changes)
        }
    }
}

/// Whether a transport event or command was queued since it was cleared:
/// written on the node's executor, read on the store's.
final class ArrivalFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set(_ flag: Bool) { value.store(flag, ordering: .relaxed) }
}
