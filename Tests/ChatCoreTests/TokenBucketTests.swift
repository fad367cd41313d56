import ChatCore
import Testing

@Suite struct TokenBucketTests {
    /// Takes one token at each time in `times`, in order; returns the answers.
    static func takes(_ bucket: inout TokenBucket, at times: [Duration]) -> [Bool] {
        times.map { bucket.take(at: $0) }
    }

    @Test func burstThenRefillAtTheRate() {
        var bucket = TokenBucket(capacity: 3, perSecond: 2)
        let answers = Self.takes(&bucket, at: [.zero, .zero, .zero, .zero, .milliseconds(499), .milliseconds(500), .milliseconds(500)])
        #expect(answers == [true, true, true, false, false, true, false])
        let later = Self.takes(&bucket, at: Array(repeating: .seconds(60), count: 4))
        #expect(later == [true, true, true, false])  // capped at capacity
    }

    @Test func timeGoingBackDoesNotMintTokens() {
        var bucket = TokenBucket(capacity: 1, perSecond: 1)
        let answers = Self.takes(&bucket, at: [.seconds(10), .seconds(5), .milliseconds(10_500), .seconds(11)])
        #expect(answers == [true, false, false, true])
    }
}
