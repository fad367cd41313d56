import Testing
import TestSupport

/// A standard wait counts only time in which its waiter ran: a poll that
/// comes back late (the pool was busy with other tests, and so was the
/// code waited for) counts `TestDeadline.stallCredit`. A bound named with
/// `within:` is the wall clock.
struct WaitBudgetTests {
    @Test func aStandardWaitForgivesStallsNotSteadyPolling() {
        let start = ContinuousClock.now
        var budget = WaitBudget(within: nil, from: start)
        // 45 s in which the waiter ran every 5 s only: 0.9 s used.
        var now = start
        for _ in 0..<9 {
            now += .seconds(5)
            let spent = budget.isSpent(at: now)
            #expect(!spent)
        }
        #expect(budget.used == .milliseconds(900))
        // Polls 10 ms apart, as on a quiet machine, use the rest in full.
        var polls = 0
        repeat {
            now += .milliseconds(10)
            polls += 1
        } while !budget.isSpent(at: now)
        #expect(polls == 1_910, "20 s in all")
    }

    @Test func aNamedBoundIsTheWallClock() {
        let start = ContinuousClock.now
        var budget = WaitBudget(within: .seconds(2), from: start)
        let early = budget.isSpent(at: start + .seconds(1))
        let late = budget.isSpent(at: start + .seconds(2))
        #expect(!early)
        #expect(late, "a stall counts in full")
    }
}
