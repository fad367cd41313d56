import ChatCore

/// A step's plan: a pure function of the core and the step's input. It
/// changes nothing but its own copy of the router (`scratch`) and the plan
/// it returns; planning the same input on the same core plans the same
/// step (a retry after a failed commit does just that).
extension NodeCore {
    /// Plans `input` on a copy of `router`; `prior` is the plan this core
    /// assumes committed (`assuming`) when that commit has not returned yet.
    func plan(_ input: StepInput, after prior: NodePlan? = nil) -> PlannedStep {
        var scratch = router
        scratch.directChat.idRandom = input.random
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
            plan.catchUpAnsweredBefore = Set(prior.catchUpPages.map(\.request.id))
        }
        plan.authorUsage = usage
        plan.startUsage = usage
        plan.standing = prior?.standing(after: input.standing) ?? input.standing
        plan.changes.poolBudget = options.unknownPoolBytes
        plan.changes.now = input.now
        for (payload, peer) in input.frames {
            planReceive(payload, from: peer, stored: stored, now: input.now, on: &scratch, into: &plan)
        }
        planCommands(input.commands, now: input.now, on: &scratch, into: &plan)
        plan.changes.ageingOrder = ageingOrder(
            for: plan.changes.messages, pooled: plan.changes.pooled, on: scratch, classes: plan.trust)
        // Spent: nothing after the step composes with this step's bits.
        scratch.directChat.idRandom = nil
        return PlannedStep(plan: plan, scratch: scratch, input: input)
    }
}
