import Synchronization

/// Wakes waiters when something they watch changes (an event logged, a
/// line read), so a test's wait resumes on the change itself instead of
/// polling for it. A waiter reads `generation` with the state it checked,
/// and `wait(after:for:)` returns at once if a change came since.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waits under way, and those whose time ran out before they parked.
        var active: Set<UInt64> = []
        var expired: Set<UInt64> = []
    }
    private let state = Mutex(State())

    public init() {}

    /// Changes counted so far.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Counts a change and wakes every waiter.
    public func notify() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once a change comes after `generation`, `timeout` passes
    /// (a deadline to check, on the wall clock), or the task is cancelled.
    public func wait(after generation: UInt64, for timeout: Duration) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            state.active.insert(state.nextWaiter)
            return state.nextWaiter
        }
        // The wait's deadline, not an assertion: the caller checks its
        // condition after, whichever woke it.
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            wake(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state -> Bool in
                    if state.generation != generation || state.expired.remove(id) != nil || Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return true
                }
                if !parked { continuation.resume() }
            }
        } onCancel: {
            wake(id)
        }
        timer.cancel()
        state.withLock { state in
            state.active.remove(id)
            state.expired.remove(id)
        }
    }

    /// Waits until `condition` holds, checking it at start and again at
    /// each change (not on a poll); false once the wait's budget is used
    /// up (`WaitBudget`: the standard deadline, or the wall-clock bound
    /// named with `within:`) or the task is cancelled. Whoever changes
    /// what `condition` reads calls `notify()`.
    public func waitUntil(_ what: String = "condition", within timeout: Duration? = nil, _ condition: () -> Bool) async -> Bool {
        var budget = WaitBudget(within: timeout)
        while true {
            let seen = generation
            if condition() { return true }
            if budget.isSpent() || Task.isCancelled { return false }
            await wait(after: seen, for: budget.nextCheck)
        }
    }

    /// Resumes waiter `id`, or marks it so it does not park.
    private func wake(_ id: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            if state.active.contains(id) { state.expired.insert(id) }
            return nil
        }
        waiter?.resume()
    }
}
