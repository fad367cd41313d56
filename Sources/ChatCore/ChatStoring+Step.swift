/// A step in one turn of the store.
extension ChatStoring {
    /// Looks up `ids` and `authors`, hands the answer to `plan`, and commits
    /// the changes it returns, all in one turn on the store's executor: a
    /// step with nothing to overlap (one message) crosses to the store once,
    /// not twice (a file store's executor is a thread of its own, so each
    /// crossing is a thread hand-off each way). `plan` runs on that
    /// executor and must not touch the caller's state: it gets the lookup
    /// (nil if unreadable, as `lookUp`'s callers take it; empty when there
    /// is nothing to look up) and returns what it planned with the changes
    /// to write, or nil to write nothing and hand the lookup back
    /// (`.lookedUp`). Empty changes write nothing. The commit is the same
    /// one `commit` makes: all or nothing.
    ///
    /// Isolated to the store: `ChatStoring` is an actor protocol, so this
    /// runs on the store's executor and its `lookUp` and `commit` are calls
    /// on the same actor, not crossings (`StoreExecutorTests`).
    public func lookUpAndCommit<Planned: Sendable>(
        ids: [MessageID], authors: [NodeNumber],
        plan: @Sendable (StoreLookup?) -> (Planned, StoreChanges)?
    ) async -> StoreTurn<Planned> {
        var found: StoreLookup? = StoreLookup()
        if !ids.isEmpty || !authors.isEmpty { found = try? await lookUp(ids: ids, authors: authors) }
        guard let (planned, changes) = plan(found) else { return .lookedUp(found) }
        // Acks, replies, answers: nothing to write.
        if changes.isEmpty { return .committed(planned, .success(StoreCommitResult())) }
        do { return .committed(planned, .success(try await commit(changes))) } catch { return .committed(planned, .failure(error)) }
    }
}

/// What one turn of the store did (`ChatStoring.lookUpAndCommit`).
public enum StoreTurn<Planned: Sendable>: Sendable {
    /// The planner declined: only the lookup was made (nil if unreadable).
    case lookedUp(StoreLookup?)
    /// Planned, and committed or not.
    case committed(Planned, Result<StoreCommitResult, StoreError>)
}
