@testable import ChatCore
import Testing
import TestSupport

/// The one FIFO at every head offset (popped prefix) and fill level,
/// against a plain array model; compaction keeps storage bounded.
@Suite struct FIFOQueueTests {
    /// A queue whose head sits `offset` pops in, holding 100, 101, ...
    static func make(offset: Int, count: Int) -> FIFOQueue<Int> {
        var queue = FIFOQueue<Int>()
        for junk in 0..<offset { queue.append(-1 - junk) }
        for element in 100..<(100 + count) { queue.append(element) }
        for _ in 0..<offset { queue.popFirst() }
        return queue
    }

    static func withEvery(_ body: (_ queue: FIFOQueue<Int>, _ model: [Int], _ context: String) -> Void) {
        for offset in [0, 1, 2, 5, 15, 16, 17, 40] {
            for count in 0...20 {
                body(make(offset: offset, count: count), Array(100..<(100 + count)), "offset \(offset), count \(count)")
            }
        }
    }

    static func expectEqual(_ queue: FIFOQueue<Int>, _ model: [Int], _ context: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Array(queue) == model, "\(context)", sourceLocation: sourceLocation)
        #expect(queue.count == model.count && queue.isEmpty == model.isEmpty, "\(context)", sourceLocation: sourceLocation)
        #expect(queue.first == model.first && queue.last == model.last, "\(context)", sourceLocation: sourceLocation)
        #expect(queue.indices.map { queue[$0] } == model, "\(context)", sourceLocation: sourceLocation)
    }

    @Test func popsInArrivalOrderAtEveryOffset() {
        Self.withEvery { queue, model, context in
            var queue = queue, model = model
            Self.expectEqual(queue, model, context)
            queue.append(7)
            model.append(7)
            while !model.isEmpty {
                let popped = queue.popFirst()
                #expect(popped == model.removeFirst(), "\(context)")
                Self.expectEqual(queue, model, "\(context), draining")
            }
            let none = queue.popFirst()
            #expect(none == nil, "\(context): pop on empty")
        }
    }

    @Test func insertAtEveryIndex() {
        Self.withEvery { queue, model, context in
            for index in 0...model.count {
                var queue = queue, model = model
                queue.insert(-7, at: index)
                model.insert(-7, at: index)
                Self.expectEqual(queue, model, "\(context), insert at \(index)")
                queue.append(9)
                model.append(9)
                Self.expectEqual(queue, model, "\(context), insert at \(index) then append")
            }
        }
    }

    @Test func popSuffixFromEveryIndex() {
        Self.withEvery { queue, model, context in
            for index in 0...model.count {
                var queue = queue
                let suffix = queue.popSuffix(from: index)
                #expect(suffix == Array(model[index...]), "\(context), from \(index)")
                Self.expectEqual(queue, Array(model[..<index]), "\(context), kept before \(index)")
                queue.append(9)
                Self.expectEqual(queue, Array(model[..<index]) + [9], "\(context), appended after suffix")
            }
        }
    }

    @Test func removeAllThenReuse() {
        Self.withEvery { queue, _, context in
            var queue = queue
            queue.removeAll()
            Self.expectEqual(queue, [], context)
            queue.append(1)
            Self.expectEqual(queue, [1], context)
        }
    }

    /// Steady traffic (one in, one out, and bursts) never lets the popped
    /// prefix grow past the live part: memory follows what is queued.
    @Test func compactionKeepsStorageBounded() {
        var queue = FIFOQueue<Int>()
        var model: [Int] = []
        var rng = SeededRandom(seed: 17)
        for step in 0..<20_000 {
            let burst = Int.random(in: 0..<4, using: &rng)
            for k in 0..<burst { queue.append(step * 4 + k); model.append(step * 4 + k) }
            for _ in 0..<Int.random(in: 0..<4, using: &rng) where !model.isEmpty {
                let popped = queue.popFirst()
                #expect(popped == model.removeFirst())
            }
            if queue.storageSlots > 2 * queue.count + 16 {
                Issue.record("step \(step): \(queue.storageSlots) slots for \(queue.count) elements")
                return
            }
        }
        #expect(Array(queue) == model)
        while queue.popFirst() != nil {}
        #expect(queue.storageSlots == 0)
    }

    final class Tracked {}

    /// A popped element is released at once, not kept by the dead prefix.
    @Test func poppedElementsAreReleased() {
        var queue = FIFOQueue<Tracked>()
        weak var first: Tracked?
        weak var second: Tracked?
        do {
            let a = Tracked(), b = Tracked()
            first = a
            second = b
            queue.append(a)
            queue.append(b)
            queue.append(Tracked())
        }
        queue.popFirst()
        #expect(first == nil)
        #expect(second != nil)
        _ = queue.popSuffix(from: 0)
        #expect(second == nil)
    }
}
