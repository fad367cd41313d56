import ChatCrypto
@testable import P2PTransport
import Testing

/// The receiver's hashing thread: the digest of records put one by one
/// into its buffers is the digest of their bytes in order, whatever the
/// ring's capacity and wherever a record lies in its buffer.
@Suite struct HashPipelineTests {
    static func records(_ count: Int) -> [[UInt8]] {
        (0..<count).map { n in (0..<(n * 37 % 1000 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
    }

    /// Copies `record` into the pipeline's next buffer, `skip` bytes in (as
    /// a data record's header is), and hands it over.
    static func put(_ record: [UInt8], into pipeline: HashPipeline, skip: Int = 0) {
        let room = pipeline.room()
        let bytes = UnsafeMutableRawBufferPointer(rebasing: room[skip..<(skip + record.count)])
        record.withUnsafeBytes { bytes.copyMemory(from: $0) }
        pipeline.add(UnsafeRawBufferPointer(bytes))
    }

    @Test(arguments: [1, 2, 16])
    func theDigestIsTheWholeFilesAtEveryCapacity(capacity: Int) {
        let records = Self.records(300)
        let whole = SHA256Stream()
        records.joined().map { $0 }.withUnsafeBytes { whole.update($0) }
        let pipeline = HashPipeline(hasher: SHA256Stream(), capacity: capacity, bufferBytes: 1100)
        for (n, record) in records.enumerated() { Self.put(record, into: pipeline, skip: n % 9) }
        #expect(pipeline.finish() == whole.finish())
    }

    /// A buffer lent but not handed over (a record that was not data) is
    /// lent again: nothing of it is hashed.
    @Test func aBufferNotHandedOverIsLentAgain() {
        let pipeline = HashPipeline(hasher: SHA256Stream(), capacity: 2, bufferBytes: 16)
        let first = pipeline.room()
        first.storeBytes(of: 0xFF, toByteOffset: 0, as: UInt8.self)
        #expect(pipeline.room().baseAddress == first.baseAddress)
        Self.put([1, 2, 3], into: pipeline)
        let oneTwoThree = SHA256Stream()
        [UInt8]([1, 2, 3]).withUnsafeBytes { oneTwoThree.update($0) }
        #expect(pipeline.finish() == oneTwoThree.finish())
    }

    @Test func aClosedPipelineEndsAndTakesNoMore() {
        let hasher = SHA256Stream()
        let pipeline = HashPipeline(hasher: hasher, capacity: 1, bufferBytes: 16)
        Self.put([1, 2, 3], into: pipeline)
        pipeline.close()
        Self.put([4], into: pipeline)  // dropped, never blocks
        let oneTwoThree = SHA256Stream()
        [UInt8]([1, 2, 3]).withUnsafeBytes { oneTwoThree.update($0) }
        #expect(pipeline.finish() == oneTwoThree.finish())
    }
}
