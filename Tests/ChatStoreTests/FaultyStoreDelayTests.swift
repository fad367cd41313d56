import ChatCore
import ChatStore
import Testing
import TestSupport

/// TestSupport's `FaultyStore` makes a commit slow on its injected clock:
/// on a `ManualClock` the commit waits until the test moves time, so a
/// test of a slow disk never sleeps.
@Suite struct FaultyStoreDelayTests {
    @Test func aSlowCommitWaitsForTheManualClock() async throws {
        let clock = ManualClock()
        let store = FaultyStore(try ChatStore(path: nil, localNumber: Fixtures.me), clock: clock)
        await store.setCommitDelay(.seconds(1))
        var changes = StoreChanges()
        changes.messages = Fixtures.numbered(1)
        let commit = Task { try await store.commit(changes) }
        #expect(await clock.waitForSleepers(1), "the commit waits on the clock")
        #expect(await store.journal == [.commit(1, failed: false)], "begun, not stored")
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        #expect(try await commit.value.added.count == 1)
        #expect(await store.journal == [.commit(1, failed: false), .stored(1)])
    }
}
