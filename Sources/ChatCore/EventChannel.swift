import Synchronization

/// A single-consumer stream of events with a bounded buffer that drops
/// its oldest element when full, as `AsyncStream` with
/// `.bufferingNewest(capacity)` does: a consumer that stops reading costs
/// at most `capacity` waiting events (plus the batch it last took). With a
/// `weigh` function the buffer is also bounded by the sum of its elements'
/// weights (`byteBudget`): a count alone let a node flooded by many peers
/// hold 65,536 message events (some 60 MB, and as much again in the batch
/// taken) for a client reading slower than the flood.
///
/// Why not `AsyncStream`: its consumer takes one element per lock and,
/// whenever it has caught up, suspends and is woken once per element, in
/// unspecialized generic code. A node storing tens of thousands of
/// messages a second spent 10-15% of its CPU there. Here the consumer
/// takes everything waiting in one lock and suspends only when nothing
/// is; `yield` is inlinable, so it is specialized where it is called.
///
/// One consumer at a time (as with `AsyncStream`). Iteration ends after
/// `finish()` once everything yielded before it was taken, or when the
/// consuming task is cancelled.
public final class EventChannel<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    public enum YieldResult: Equatable, Sendable {
        case enqueued
        /// Enqueued, and this many of the oldest waiting elements (one or
        /// more) were dropped for it.
        case droppedOldest(Int)
        /// `finish()` was called: the element was discarded.
        case finished
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var buffer = FIFOQueue<Element>()
        @usableFromInline var waiter: UnsafeContinuation<Void, Never>?
        @usableFromInline var finished = false
        /// The weights of the elements in `buffer`, summed.
        @usableFromInline var weight = 0

        @usableFromInline init() {}
    }

    @usableFromInline let state = Mutex(State())
    public let capacity: Int
    /// Most weight waiting at once (`.max` without `weigh`); the newest
    /// element is always kept, whatever its weight.
    public let byteBudget: Int
    @usableFromInline let weigh: (@Sendable (Element) -> Int)?

    /// `weigh`: an element's approximate size in bytes, for `byteBudget`.
    public init(capacity: Int, byteBudget: Int = .max, weigh: (@Sendable (Element) -> Int)? = nil) {
        precondition(capacity > 0, "an EventChannel needs a positive capacity")
        precondition(byteBudget > 0, "an EventChannel needs a positive byte budget")
        precondition(weigh != nil || byteBudget == .max, "a byte budget needs a weigh function")
        self.capacity = capacity
        self.byteBudget = byteBudget
        self.weigh = weigh
    }

    /// Adds `element` for the consumer, waking it if it waits.
    @inlinable @discardableResult
    public func yield(_ element: Element) -> YieldResult {
        let weight = Swift.max(0, weigh?(element) ?? 0)
        let (result, waiter) = state.withLock { state -> (YieldResult, UnsafeContinuation<Void, Never>?) in
            guard !state.finished else { return (.finished, nil) }
            var dropped = 0
            while !state.buffer.isEmpty, state.buffer.count >= capacity || state.weight > byteBudget - weight {
                if let oldest = state.buffer.popFirst() { state.weight -= Swift.max(0, weigh?(oldest) ?? 0) }
                dropped += 1
            }
            // Empty means weightless, whatever an inexact weigh summed to.
            if state.buffer.isEmpty { state.weight = 0 }
            state.buffer.append(element)
            state.weight += weight
            let waiter = state.waiter
            state.waiter = nil
            return (dropped == 0 ? .enqueued : .droppedOldest(dropped), waiter)
        }
        waiter?.resume()
        return result
    }

    /// No more elements; the consumer's iteration ends once it has taken
    /// what is waiting.
    public func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
            state.finished = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Everything waiting, oldest first, after waiting while nothing is;
    /// empty once finished and drained, or when the task is cancelled.
    @usableFromInline func take(isolation actor: isolated (any Actor)? = #isolation) async -> FIFOQueue<Element> {
        while true {
            let taken = state.withLock { state -> FIFOQueue<Element>? in
                if !state.buffer.isEmpty {
                    defer {
                        state.buffer = FIFOQueue()
                        state.weight = 0
                    }
                    return state.buffer
                }
                return state.finished ? FIFOQueue() : nil
            }
            if let taken { return taken }
            if Task.isCancelled { return FIFOQueue() }
            await withTaskCancellationHandler {
                await withUnsafeContinuation(isolation: actor) { (waiter: UnsafeContinuation<Void, Never>) in
                    // Checked under the lock that `yield`, `finish` and the
                    // cancellation handler take: no wake-up is lost.
                    let resumeNow = state.withLock { state in
                        guard state.buffer.isEmpty, !state.finished, !Task.isCancelled else { return true }
                        state.waiter = waiter
                        return false
                    }
                    if resumeNow { waiter.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> UnsafeContinuation<Void, Never>? in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }

    /// Inlinable, as `yield` is: an element from the batch in hand is
    /// taken in code specialized for the consumer's element type; only
    /// `take`, once per batch, runs generic.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let channel: EventChannel
        @usableFromInline var batch = FIFOQueue<Element>()

        @usableFromInline init(channel: EventChannel) { self.channel = channel }

        @inlinable public mutating func next() async -> Element? {
            await next(isolation: nil)
        }

        @inlinable public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            if let element = batch.popFirst() { return element }
            batch = await channel.take(isolation: actor)
            return batch.popFirst()
        }
    }

    @inlinable public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: self) }
}
