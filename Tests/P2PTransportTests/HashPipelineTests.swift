import ChatCrypto
@testable import P2PTransport
import Testing

/// The receiver's hashing thread: the digest of records added one by one
/// is the digest of their bytes in order, whatever the queue's capacity.
@Suite struct HashPipelineTests {
    static func records(_ count: Int) -> [[UInt8]] {
        (0..<count).map { n in (0..<(n * 37 % 1000 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
    }

    @Test(arguments: [1, 2, 16])
    func theDigestIsTheWholeFilesAtEveryCapacity(capacity: Int) {
        let records = Self.records(300)
        let whole = SHA256Stream()
        records.joined().map { $0 }.withUnsafeBytes { whole.update($0) }
        let pipeline = HashPipeline(hasher: SHA256Stream(), capacity: capacity)
        for record in records { pipeline.add(record) }
        #expect(pipeline.finish() == whole.finish())
    }

    @Test func aClosedPipelineEndsAndTakesNoMore() {
        let hasher = SHA256Stream()
        let pipeline = HashPipeline(hasher: hasher, capacity: 1)
        pipeline.add([1, 2, 3])
        pipeline.close()
        pipeline.add([4])  // dropped, never blocks
        let oneTwoThree = SHA256Stream()
        [UInt8]([1, 2, 3]).withUnsafeBytes { oneTwoThree.update($0) }
        #expect(pipeline.finish() == oneTwoThree.finish())
    }
}
