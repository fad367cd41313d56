import ChatCore
import Synchronization
import Testing
import TestSupport

/// The manual clock's timers: a sleeper wakes when an advance reaches its
/// deadline, not before, in deadline order; a cancelled one ends at once.
///
/// The time limit guards against a hang (a lost wake-up waits forever),
/// not speed: a parallel `swift test` on two loaded cores left these
/// waiting for the pool past a minute (load ~600; no bug).
@Suite(.timeLimit(.minutes(10))) struct ManualClockTests {
    @Test func aSleeperWakesOnlyWhenAnAdvanceReachesItsDeadline() async throws {
        let clock = ManualClock()
        let woke = Recorded<String>()
        let long = Task { try await clock.sleep(for: .seconds(5)); woke.append("long") }
        let short = Task { try await clock.sleep(for: .seconds(1)); woke.append("short") }
        try #require(await clock.waitForSleepers(2))
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 2, "neither deadline reached")
        clock.advance(by: .milliseconds(1))
        try await short.value
        #expect(woke.values == ["short"])
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(10))
        try await long.value
        #expect(woke.values == ["short", "long"])
    }

    @Test func oneAdvanceWakesEverySleeperItPassesInDeadlineOrder() async throws {
        let clock = ManualClock()
        let order = Recorded<Int>()
        // Each wakes and records on its own task; the resume order is the
        // deadline order, which the continuations see first.
        let tasks = (1...5).reversed().map { index in
            Task { try await clock.sleep(for: .seconds(index)); order.append(index) }
        }
        try #require(await clock.waitForSleepers(5))
        clock.advance(by: .seconds(3))
        try #require(await order.changes.waitUntil("three woke") { order.values.count == 3 })
        #expect(Set(order.values) == [1, 2, 3])
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(2))
        for task in tasks { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingASleeperEndsItWithoutAnAdvance() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(60)) }
        try #require(await clock.waitForSleepers(1))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeperCount == 0)
    }

    /// A deadline is a point on the clock's uptime: it does not move with
    /// the time the sleeper took to start waiting, and one already passed
    /// returns at once.
    @Test func aSleeperUntilADeadlineWakesWhenUptimeReachesIt() async throws {
        let clock = ManualClock(uptime: .seconds(10))
        let woke = Recorded<String>()
        let task = Task { try await clock.sleep(until: .seconds(12)); woke.append("due") }
        try #require(await clock.waitForSleepers(1))
        clock.advance(by: .milliseconds(1_999))
        #expect(clock.sleeperCount == 1, "uptime 11.999 s: not due")
        clock.advance(by: .milliseconds(1))
        try await task.value
        #expect(woke.values == ["due"])
        try await clock.sleep(until: .seconds(3))
        try await clock.sleep(until: clock.uptime())
        #expect(clock.sleeperCount == 0, "a deadline passed does not wait")
    }

    @Test func aZeroSleepReturnsAtOnce() async throws {
        let clock = ManualClock()
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
        #expect(clock.armings == 0, "a sleep already due does not park")
    }

    /// The re-arm wait: with a bystander asleep on the same clock, "one
    /// sleeper" holds the moment the advance returns, before the woken
    /// timer has run. Waiting for the woken timer's next sleep instead
    /// sees its work done after every advance, however the tasks are
    /// scheduled (this is a loop of 50 chances to lose that race; the old count lost nearly all).
    @Test func anAdvanceWaitsForTheTimerItWokeToReArmNotForAnySleeper() async throws {
        let clock = ManualClock()
        let ticks = Mutex(0)
        let bystander = Task { try await clock.sleep(for: .seconds(3_600)) }
        let timer = Task {
            while true {
                try await clock.sleep(for: .seconds(1))
                await Task.yield()  // work that takes a turn of the pool
                ticks.withLock { $0 += 1 }
            }
        }
        try #require(await clock.waitForSleepers(2))
        for tick in 1...50 {
            // One sleeper: the bystander alone met that count as the advance
            // returned, before the timer ran (what a count of sleepers waited for).
            try #require(await clock.advance(by: .seconds(1), thenWaitFor: 1))
            #expect(ticks.withLock { $0 } == tick, "the woken timer ticked and re-armed")
        }
        timer.cancel()
        bystander.cancel()
        _ = await (timer.result, bystander.result)
    }

    /// `armings` counts each sleep that parks; an advance that wakes no
    /// one needs no re-arm, and one that wakes two waits for two.
    @Test func armingsCountParkedSleepsAndTheRearmWaitCountsTheWoken() async throws {
        let clock = ManualClock()
        #expect(clock.armings == 0)
        let loops = (1...2).map { _ in
            Task { while true { try await clock.sleep(for: .seconds(1)) } }
        }
        try #require(await clock.waitForSleepers(2))
        #expect(clock.armings == 2)
        let short = clock.advance(by: .milliseconds(500))
        #expect(short.woke == 0 && short.armingsBefore == 2)
        #expect(await clock.waitForRearm(after: short), "nothing woke: nothing to wait for")
        let due = clock.advance(by: .milliseconds(500))
        #expect(due.woke == 2)
        #expect(await clock.waitForRearm(after: due))
        #expect(clock.armings >= 4 && clock.sleeperCount == 2)
        for loop in loops { loop.cancel() }
        for loop in loops { _ = await loop.result }
        #expect(clock.sleeperCount == 0)
    }

    /// A timer that does not sleep again is a re-arm that never comes: the
    /// wait says so (false) rather than passing. Checked once the one-shot
    /// has ended (`within: .zero`: one look, no wait).
    @Test func aTimerThatDoesNotReArmFailsTheWait() async throws {
        let clock = ManualClock()
        let once = Task { try await clock.sleep(for: .seconds(1)) }
        try #require(await clock.waitForSleepers(1))
        let step = clock.advance(by: .seconds(1))
        try await once.value
        #expect(await clock.waitForRearm(after: step, within: .zero) == false)
        #expect(await clock.waitForSleepers(0, within: .zero), "while a count of sleepers (zero) is met")
    }
}

/// What sleepers recorded on waking, shared with their tasks; `changes`
/// wakes a test that waits for a record.
private final class Recorded<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    let changes = ChangeSignal()
    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
        changes.notify()
    }
    var values: [Value] { storage.withLock { $0 } }
}
