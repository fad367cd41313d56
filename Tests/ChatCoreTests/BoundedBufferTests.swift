import ChatCore
import Testing
import TestSupport

/// The ring buffer at every capacity 1...8, every wrap position (head
/// offset) and every fill level, checked against a plain array model.
@Suite struct BoundedBufferTests {
    /// A buffer whose head sits at `offset` and that holds `count`
    /// elements 100, 101, ...; with the array it should equal.
    struct Case: CustomStringConvertible {
        var capacity: Int
        var offset: Int
        var count: Int
        var buffer: BoundedBuffer<Int>
        var model: [Int]

        var description: String { "capacity \(capacity), head offset \(offset), count \(count)" }
    }

    /// Calls `body` for every capacity in `capacities`, every head offset
    /// 0..<capacity and every count 0...capacity (swift-collections'
    /// `withEveryDeque` idea).
    static func withEvery(capacities: ClosedRange<Int> = 1...8, _ body: (Case) throws -> Void) rethrows {
        for capacity in capacities {
            for offset in 0..<capacity {
                for count in 0...capacity {
                    var buffer = BoundedBuffer<Int>(capacity: capacity)
                    // Move the head: fill `offset` slots and drain them.
                    for junk in 0..<offset { buffer.append(-1 - junk) }
                    for _ in 0..<offset { buffer.removeFirst() }
                    let model = Array(100..<(100 + count))
                    for element in model { buffer.append(element) }
                    try body(Case(capacity: capacity, offset: offset, count: count, buffer: buffer, model: model))
                }
            }
        }
    }

    /// Every observable property agrees with the model.
    static func expectEqual(_ buffer: BoundedBuffer<Int>, _ model: [Int], capacity: Int, _ context: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Array(buffer) == model, "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.count == model.count, "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.isEmpty == model.isEmpty, "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.isFull == (model.count == capacity), "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.capacity == capacity, "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.first == model.first, "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.last == model.last, "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.startIndex == 0 && buffer.endIndex == model.count, "\(context)", sourceLocation: sourceLocation)
        #expect(Array(buffer.indices) == Array(model.indices), "\(context)", sourceLocation: sourceLocation)
        #expect(buffer.indices.map { buffer[$0] } == model, "\(context)", sourceLocation: sourceLocation)
        #expect(Array(buffer.reversed()) == Array(model.reversed()), "\(context)", sourceLocation: sourceLocation)
    }

    @Test func initialStateAtEveryWrapPosition() {
        Self.withEvery { c in
            Self.expectEqual(c.buffer, c.model, capacity: c.capacity, "\(c)")
        }
    }

    @Test func appendDropsOldestWhenFull() {
        Self.withEvery { c in
            var buffer = c.buffer
            var model = c.model
            // Two laps of appends so every slot is overwritten at least once.
            for element in 200..<(200 + 2 * c.capacity) {
                model.append(element)
                let expectedDrop = model.count > c.capacity ? model.removeFirst() : nil
                #expect(buffer.append(element) == expectedDrop, "\(c), appending \(element)")
                Self.expectEqual(buffer, model, capacity: c.capacity, "\(c), after appending \(element)")
            }
        }
    }

    @Test func insertAtEveryIndex() {
        Self.withEvery { c in
            for index in 0...c.count {
                var buffer = c.buffer
                var model = c.model
                model.insert(7, at: index)
                // A full buffer drops its oldest; at index 0 that is the new element.
                let expectedDrop = model.count > c.capacity ? model.removeFirst() : nil
                #expect(buffer.insert(7, at: index) == expectedDrop, "\(c), insert at \(index)")
                Self.expectEqual(buffer, model, capacity: c.capacity, "\(c), after insert at \(index)")
            }
        }
    }

    @Test func insertAtZeroIntoFullBufferDropsTheNewElement() {
        Self.withEvery { c in
            guard c.count == c.capacity else { return }
            var buffer = c.buffer
            #expect(buffer.insert(-7, at: 0) == -7, "\(c)")
            Self.expectEqual(buffer, c.model, capacity: c.capacity, "\(c)")
        }
    }

    @Test func removeFirstUntilEmptyThenRefill() {
        Self.withEvery { c in
            var buffer = c.buffer
            var model = c.model
            while !model.isEmpty {
                #expect(buffer.removeFirst() == model.removeFirst(), "\(c)")
                Self.expectEqual(buffer, model, capacity: c.capacity, "\(c), draining")
            }
            #expect(buffer.removeFirst() == nil, "\(c): removeFirst on empty")
            Self.expectEqual(buffer, [], capacity: c.capacity, "\(c), empty")
            for element in 0..<(c.capacity + 1) {
                model.append(element)
                if model.count > c.capacity { model.removeFirst() }
                buffer.append(element)
            }
            Self.expectEqual(buffer, model, capacity: c.capacity, "\(c), refilled")
        }
    }

    @Test func removeAllThenReuse() {
        Self.withEvery { c in
            var buffer = c.buffer
            buffer.removeAll()
            Self.expectEqual(buffer, [], capacity: c.capacity, "\(c), after removeAll")
            let refill = Array(50..<(50 + c.capacity))
            for element in refill { #expect(buffer.append(element) == nil, "\(c)") }
            Self.expectEqual(buffer, refill, capacity: c.capacity, "\(c), refilled after removeAll")
        }
    }

    @Test func slicesAndIndexArithmetic() {
        Self.withEvery { c in
            let buffer = c.buffer
            for lower in 0...c.count {
                for upper in lower...c.count {
                    #expect(Array(buffer[lower..<upper]) == Array(c.model[lower..<upper]), "\(c) [\(lower)..<\(upper)]")
                }
            }
            #expect(buffer.distance(from: buffer.startIndex, to: buffer.endIndex) == c.count, "\(c)")
            #expect(buffer.index(buffer.startIndex, offsetBy: c.count) == buffer.endIndex, "\(c)")
            #expect(buffer.firstIndex(of: 100) == c.model.firstIndex(of: 100), "\(c)")
        }
    }

    /// Long random operation sequences, seeded, against the model.
    @Test(arguments: [1, 2, 3, 5, 8, 100])
    func randomOperationsMatchModel(capacity: Int) {
        var rng = SeededRandom(seed: UInt64(capacity) &* 7919)
        var buffer = BoundedBuffer<Int>(capacity: capacity)
        var model: [Int] = []
        for step in 0..<2_000 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                model.append(step)
                let drop = model.count > capacity ? model.removeFirst() : nil
                #expect(buffer.append(step) == drop)
            case 4..<7:
                let index = Int.random(in: 0...model.count, using: &rng)
                model.insert(step, at: index)
                let drop = model.count > capacity ? model.removeFirst() : nil
                #expect(buffer.insert(step, at: index) == drop)
            case 7..<9:
                #expect(buffer.removeFirst() == (model.isEmpty ? nil : model.removeFirst()))
            default:
                if Int.random(in: 0..<20, using: &rng) == 0 {
                    buffer.removeAll()
                    model.removeAll()
                }
            }
            if Array(buffer) != model {
                Issue.record("diverged at step \(step): \(Array(buffer)) vs \(model)")
                return
            }
        }
    }

    final class Tracked {}

    /// Removed and overwritten elements are released, not kept alive by
    /// the storage.
    @Test func removedElementsAreReleased() {
        var buffer = BoundedBuffer<Tracked>(capacity: 2)
        weak var first: Tracked?
        weak var second: Tracked?
        weak var third: Tracked?
        do {
            let a = Tracked(), b = Tracked(), c = Tracked()
            first = a; second = b; third = c
            buffer.append(a)
            buffer.append(b)
            buffer.append(c)  // drops a
        }
        #expect(first == nil)
        #expect(second != nil)
        _ = buffer.removeFirst()  // b
        #expect(second == nil)
        #expect(third != nil)
        buffer.removeAll()
        #expect(third == nil)
    }
}
