import ChatCore
import Foundation
import Synchronization

/// A clock tests move by hand: nothing happens until `advance` is called.
/// Sleepers wake when an `advance` carries uptime to their deadline, in
/// deadline order, so timers fire in a test exactly as the test says.
///
/// A test knows a woken timer has done its work once it sleeps again: the
/// clock counts every sleep that parks (`armings`, only ever growing), so
/// `advance(by:thenWaitFor:)` waits for the sleepers it woke to re-arm,
/// not merely for some number of tasks to be asleep (a bystander's sleep
/// would satisfy that before the woken timer ran).
public final class ManualClock: ChatClock {
    /// What one `advance` did: the sleepers it woke, and how many sleeps
    /// had parked when it woke them (`waitForRearm(after:)`).
    public struct Advance: Sendable {
        public let woke: Int
        public let armingsBefore: UInt64
    }
    private struct Sleeper {
        let id: UInt64
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var wall: Date
        var uptime: Duration
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Sleeps that parked so far (`armings`).
        var armings: UInt64 = 0
    }
    private let state: Mutex<State>
    /// Notified whenever a task starts to sleep (`waitForSleepers`).
    private let parked = ChangeSignal()

    public init(now: Date = Date(timeIntervalSince1970: 1_732_147_200), uptime: Duration = .zero) {
        state = Mutex(State(wall: now, uptime: uptime))
    }

    public func now() -> Date { state.withLock { $0.wall } }

    public func uptime() -> Duration { state.withLock { $0.uptime } }

    /// How many tasks wait on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How many sleeps have parked on this clock so far (a sleep already
    /// due returns without parking and is not counted). Only grows.
    public var armings: UInt64 { state.withLock { $0.armings } }

    /// The earliest deadline a task waits for, or nil if none waits: a
    /// simulation jumps straight to it instead of ticking through time.
    public var nextDeadline: Duration? { state.withLock { $0.sleepers.first?.deadline } }

    public func sleep(for duration: Duration) async throws {
        try await wait { uptime in uptime + duration }
    }

    public func sleep(until deadline: Duration) async throws {
        try await wait { _ in deadline }
    }

    /// Parks the task until an `advance` carries uptime to the deadline
    /// `deadline(uptime)` computes (read under the lock with the uptime it
    /// is measured from, so no `advance` slips in between).
    private func wait(deadline: @Sendable (Duration) -> Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, wake, cancelled }
                // Checked under the lock: a cancel that comes after this
                // finds the sleeper in the list and wakes it itself.
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    let due = deadline(state.uptime)
                    if due <= state.uptime { return .wake }
                    // Kept in (deadline, id) order: `advance` takes a prefix and
                    // `nextDeadline` the first, however many wait (a simulation
                    // of 50 nodes keeps thousands of timers).
                    let index = state.sleepers.partitioningIndex { ($0.deadline, $0.id) > (due, id) }
                    state.sleepers.insert(Sleeper(id: id, deadline: due, continuation: continuation), at: index)
                    state.armings += 1
                    return .wait
                }
                switch outcome {
                case .wait: parked.notify()
                case .wake: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves both wall time and uptime forward, and wakes every sleeper
    /// whose deadline that reaches. The result says how many it woke and
    /// how many sleeps had parked by then, read in the same step as the
    /// wake, so no re-arm can slip in before it (`waitForRearm(after:)`).
    @discardableResult
    public func advance(by duration: Duration) -> Advance {
        let (due, armings) = state.withLock { state -> ([Sleeper], UInt64) in
            state.uptime += duration
            state.wall = state.wall.addingTimeInterval(duration.seconds)
            let uptime = state.uptime
            let count = state.sleepers.partitioningIndex { $0.deadline > uptime }
            let due = Array(state.sleepers[..<count])
            state.sleepers.removeFirst(count)
            return (due, state.armings)
        }
        for sleeper in due { sleeper.continuation.resume() }
        return Advance(woke: due.count, armingsBefore: armings)
    }

    /// Waits until at least `count` tasks sleep on this clock (a timer
    /// started and parked). Resumes as tasks park (no polling); false if
    /// they do not within the wait's deadline (`TestDeadline`, or
    /// `within:`, on the wall clock). After an `advance`, wait with
    /// `waitForRearm(after:)` instead: a count of sleepers cannot tell a
    /// woken timer that re-armed from another task that sleeps on.
    public func waitForSleepers(_ count: Int, within timeout: Duration? = nil) async -> Bool {
        await waitFor(within: timeout) { $0.sleepers.count >= count }
    }

    /// Waits until as many sleeps have parked since `advance` as it woke
    /// sleepers: each timer it woke has run and armed its next sleep (or
    /// another sleep parked for it: a timer replaced meanwhile). At once if
    /// it woke none. False if they do not park in time.
    public func waitForRearm(after advance: Advance, within timeout: Duration? = nil) async -> Bool {
        let wanted = advance.armingsBefore + UInt64(advance.woke)
        return await waitFor(within: timeout) { $0.armings >= wanted }
    }

    /// `advance(by:)`, then waits until the timers it woke have re-armed
    /// (`waitForRearm(after:)`) and at least `sleepers` tasks sleep; false
    /// if they do not in time.
    public func advance(by duration: Duration, thenWaitFor sleepers: Int) async -> Bool {
        let step = advance(by: duration)
        guard await waitForRearm(after: step) else { return false }
        return await waitForSleepers(sleepers)
    }

    /// Resumes as tasks park (the clock's `parked` signal) until
    /// `condition` holds over the clock's state, or the budget runs out.
    private func waitFor(within timeout: Duration?, _ condition: (State) -> Bool) async -> Bool {
        var budget = WaitBudget(within: timeout)
        while true {
            let generation = parked.generation
            if state.withLock({ condition($0) }) { return true }
            if budget.isSpent() { return false }
            await parked.wait(after: generation, for: budget.nextCheck)
        }
    }

    /// Sets the wall clock alone (a clock step, a time zone test).
    public func setWallClock(_ date: Date) {
        state.withLock { $0.wall = date }
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for an array
    /// where every such element follows every other (binary search).
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
