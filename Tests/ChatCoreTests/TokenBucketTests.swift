import ChatCore
import Testing

@Suite struct TokenBucketTests {
    @Test func burstThenRefillAtTheRate() {
        var bucket = TokenBucket(capacity: 3, perSecond: 2)
        let burst = (0..<4).map { _ in bucket.take(at: .zero) }
        #expect(burst == [true, true, true, false])
        #expect(!bucket.take(at: .milliseconds(499)))
        #expect(bucket.take(at: .milliseconds(500)))
        #expect(!bucket.take(at: .milliseconds(500)))
        let later = (0..<4).map { _ in bucket.take(at: .seconds(60)) }
        #expect(later == [true, true, true, false])  // capped at capacity
    }

    @Test func timeGoingBackDoesNotMintTokens() {
        var bucket = TokenBucket(capacity: 1, perSecond: 1)
        #expect(bucket.take(at: .seconds(10)))
        #expect(!bucket.take(at: .seconds(5)))
        #expect(!bucket.take(at: .seconds(10.5)))
        #expect(bucket.take(at: .seconds(11)))
    }
}
