@testable import P2PTransport
import Testing

/// The poll thread's holding of lazy reports, on a millisecond clock the
/// test gives: a lazy-only wake-up waits for the next one or its window.
@Suite struct LazyBatchTests {
    private static func isLazy(_ report: Int) -> Bool { report == 1 }

    @Test func aLazyOnlyWakeUpIsHeldUntilTheNextWakeUp() {
        var batch = LazyBatch<Int>()
        #expect(batch.timeout(now: 0) == nil)
        #expect(batch.woke(with: [1], now: 100, window: 500, isLazy: Self.isLazy) == nil)
        #expect(batch.timeout(now: 100) == 500)
        #expect(batch.timeout(now: 450) == 150)
        // Another report comes first: both go out together, nothing held.
        #expect(batch.woke(with: [7], now: 450, window: 500, isLazy: Self.isLazy) == [1, 7])
        #expect(batch.timeout(now: 450) == nil)
    }

    @Test func aHeldWakeUpGoesOutWhenItsWindowEnds() {
        var batch = LazyBatch<Int>()
        _ = batch.woke(with: [1], now: 0, window: 500, isLazy: Self.isLazy)
        #expect(batch.timeout(now: 600) == 0)
        #expect(batch.woke(with: [], now: 600, window: 500, isLazy: Self.isLazy) == [1])
        #expect(batch.woke(with: [], now: 700, window: 500, isLazy: Self.isLazy) == nil)
    }

    @Test func noWindowOrOtherReportsGoOutAtOnce() {
        var batch = LazyBatch<Int>()
        #expect(batch.woke(with: [1], now: 0, window: 0, isLazy: Self.isLazy) == [1])
        #expect(batch.woke(with: [1, 7], now: 0, window: 500, isLazy: Self.isLazy) == [1, 7])
        #expect(batch.woke(with: [7], now: 0, window: 500, isLazy: Self.isLazy) == [7])
        #expect(batch.timeout(now: 0) == nil)
    }
}
