import ChatCore
import Synchronization
import Testing
import TestSupport
@testable import ChatApp

/// The trimmer's tick comes from the injected clock: moving a manual clock
/// drives it, and nothing happens while that clock stands still. On the
/// wall clock it would never wake here.
///
/// The time limit guards against a hang (a lost wake-up waits forever),
/// not speed: a parallel `swift test` on two loaded cores left these
/// waiting for the pool past a minute (load ~600; no bug).
@Suite(.timeLimit(.minutes(10))) struct MemoryTrimmerTests {
    @Test func aBurstIsTrimmedAtTheQuietTickTheManualClockReaches() async throws {
        let clock = ManualClock()
        // The node's stored counter at each tick: a baseline, a burst, quiet.
        let probe = TrimProbe(stored: [0, 5_000, 5_010])
        let trimmer = Task {
            await MemoryTrimmer.run(clock: clock, logger: .disabled, stored: { probe.read() }, release: { probe.trim() })
        }
        for tick in 1...3 {
            try #require(await clock.waitForSleepers(1))
            #expect(probe.reads == tick - 1)
            clock.advance(by: MemoryTrimmer.interval - .milliseconds(1))
            #expect(clock.sleeperCount == 1, "not due before its interval")
            // It reads the counter before it sleeps again: its re-arm says the tick is done.
            try #require(await clock.waitForRearm(after: clock.advance(by: .milliseconds(1))))
            #expect(probe.reads == tick)
        }
        trimmer.cancel()
        await trimmer.value
        #expect(probe.trims == 1, "trimmed once, when the burst ended")
    }
}

/// The counter values the trimmer reads, and how often it trimmed.
private final class TrimProbe: Sendable {
    private let state: Mutex<(values: [Int], reads: Int, trims: Int)>

    init(stored: [Int]) { state = Mutex((stored, 0, 0)) }

    func read() -> Int {
        state.withLock { state in
            defer { state.reads += 1 }
            return state.values[min(state.reads, state.values.count - 1)]
        }
    }

    func trim() -> Bool {
        state.withLock { $0.trims += 1 }
        return true
    }

    var reads: Int { state.withLock { $0.reads } }
    var trims: Int { state.withLock { $0.trims } }
}
