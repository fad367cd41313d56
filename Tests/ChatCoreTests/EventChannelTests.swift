import ChatCore
import Synchronization
import Testing
import TestSupport

/// `EventChannel`: order kept, oldest dropped when full, iteration ends
/// after `finish()` (once drained) or on cancellation, and no wake-up is
/// lost between a producer and a consumer on different threads.
///
/// The time limit guards against a hang (a lost wake-up waits forever),
/// not speed: a parallel `swift test` on two loaded cores left these
/// waiting for the pool past a minute (load ~600; no bug).
@Suite(.timeLimit(.minutes(10))) struct EventChannelTests {
    @Test func elementsArriveInOrderAndIterationEndsAfterFinish() async {
        let channel = EventChannel<Int>(capacity: 10)
        for value in 1...5 { #expect(channel.yield(value) == .enqueued) }
        channel.finish()
        #expect(channel.yield(6) == .finished, "nothing is taken after finish")
        var seen: [Int] = []
        for await value in channel { seen.append(value) }
        #expect(seen == [1, 2, 3, 4, 5], "what was yielded before finish is still delivered")
    }

    @Test func aFullBufferDropsItsOldest() async {
        let channel = EventChannel<Int>(capacity: 3)
        let results = (1...5).map { channel.yield($0) }
        #expect(results == [.enqueued, .enqueued, .enqueued, .droppedOldest(1), .droppedOldest(1)])
        channel.finish()
        var seen: [Int] = []
        for await value in channel { seen.append(value) }
        #expect(seen == [3, 4, 5])
    }

    /// Bounded by weight as well as by count: the oldest go until the new
    /// element fits, and taking the buffer gives its whole budget back.
    @Test func aWeightBudgetDropsTheOldestUntilTheNewFits() async {
        let channel = EventChannel<String>(capacity: 100, byteBudget: 10, weigh: { $0.utf8.count })
        #expect(channel.yield("aaaa") == .enqueued)      // 4
        #expect(channel.yield("bbbb") == .enqueued)      // 8
        #expect(channel.yield("cc") == .enqueued)        // 10: exactly the budget
        #expect(channel.yield("d") == .droppedOldest(1)) // "aaaa" goes: 7
        #expect(channel.yield("eeeeeeee") == .droppedOldest(2), "bbbb and cc go: 1 + 8 = 9")
        #expect(channel.yield("f") == .enqueued)         // 10
        var seen: [String] = []
        var iterator = channel.makeAsyncIterator()
        for _ in 0..<3 { seen.append(await iterator.next() ?? "") }
        #expect(seen == ["d", "eeeeeeee", "f"])
        // The budget is free again once the consumer took the buffer.
        #expect(channel.yield("0123456789") == .enqueued)
        #expect(channel.yield("x") == .droppedOldest(1))
    }

    /// An element heavier than the whole budget is still delivered: it
    /// empties the buffer and stands alone.
    @Test func anElementOverTheBudgetIsKeptAlone() async {
        let channel = EventChannel<String>(capacity: 100, byteBudget: 4, weigh: { $0.utf8.count })
        channel.yield("ab")
        channel.yield("cd")
        #expect(channel.yield("0123456789") == .droppedOldest(2))
        channel.finish()
        var seen: [String] = []
        for await value in channel { seen.append(value) }
        #expect(seen == ["0123456789"])
    }

    @Test func aWaitingConsumerIsWokenByYieldAndByFinish() async {
        let channel = EventChannel<String>(capacity: 4)
        let consumer = Task {
            var seen: [String] = []
            for await value in channel { seen.append(value) }
            return seen
        }
        // The consumer may or may not be waiting yet; either way nothing is lost.
        channel.yield("a")
        channel.yield("b")
        channel.finish()
        #expect(await consumer.value == ["a", "b"])
    }

    @Test func cancellingAWaitingConsumerEndsItsIteration() async {
        let channel = EventChannel<Int>(capacity: 4)
        let started = Mutex(false)
        let changed = ChangeSignal()
        let consumer = Task {
            var count = 0
            started.withLock { $0 = true }
            changed.notify()
            for await _ in channel { count += 1 }
            return count
        }
        #expect(await changed.waitUntil("the consumer started") { started.withLock { $0 } })
        consumer.cancel()
        #expect(await consumer.value == 0, "ends without an element and without finish()")
    }

    @Test func aProducerOnAnotherThreadLosesNothing() async {
        let channel = EventChannel<Int>(capacity: 1_000_000)
        let total = 200_000
        let producer = Task.detached {
            for value in 0..<total {
                channel.yield(value)
                if value % 1000 == 0 { await Task.yield() }  // let the consumer catch up and wait
            }
            channel.finish()
        }
        var expected = 0
        var inOrder = true
        for await value in channel {
            if value != expected { inOrder = false }
            expected += 1
        }
        await producer.value
        #expect(inOrder)
        #expect(expected == total)
    }
}
