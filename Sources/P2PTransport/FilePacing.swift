import ChatCore

/// How a sender paces its transfer links to `--file-rate`: records small
/// enough that a few go out each second, each followed by the pause its
/// size takes at that rate. One 64 KiB record per pause would leave a slow
/// rate's receiver silent past the link's timeout (64 s at 1 KiB/s).
public struct FilePacing: Equatable, Sendable {
    /// File bytes per data record (at most `FileTransferLimits.chunkBytes`).
    public let recordBytes: Int
    /// The pause after each record.
    public let pause: Duration

    /// As fast as TCP goes: whole records, no pause.
    public static let unpaced = FilePacing(recordBytes: FileTransferLimits.chunkBytes, pause: .zero)

    /// Paced records per second, at rates where a record is not yet whole.
    static let recordsPerSecond = 4
    /// A record smaller than this costs more in headers and wake-ups than it paces.
    static let smallestRecord = 1024

    public init(kibPerSecond: Int) {
        let bytesPerSecond = Int64(max(1, kibPerSecond)) * 1024
        let wanted = bytesPerSecond / Int64(Self.recordsPerSecond)
        let record = Int(min(Int64(FileTransferLimits.chunkBytes), max(Int64(Self.smallestRecord), wanted)))
        self.init(recordBytes: record, pause: .microseconds(Int64(record) * 1_000_000 / bytesPerSecond))
    }

    public init(recordBytes: Int, pause: Duration) {
        self.recordBytes = recordBytes
        self.pause = pause
    }
}
