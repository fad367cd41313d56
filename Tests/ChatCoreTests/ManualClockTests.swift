import ChatCore
import Synchronization
import Testing
import TestSupport

/// The manual clock's timers: a sleeper wakes when an advance reaches its
/// deadline, not before, in deadline order; a cancelled one ends at once.
@Suite(.timeLimit(.minutes(1))) struct ManualClockTests {
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
        try #require(await waitUntil("three woke") { order.values.count == 3 })
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
    }
}

/// What sleepers recorded on waking, shared with their tasks.
private final class Recorded<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}
