/// Free disk space a file store leaves alone, like Syncthing's
/// `minDiskFree`: a share of the file system with a floor.
///
/// Below it, the pool of unknown authors' messages ages out instead of
/// growing (`ChatStore+StoragePressure`); the user's own messages, DMs
/// they accepted and known peers' messages are still stored while the
/// disk takes them. The default, 1% or 50 MiB whichever is larger: 1% is
/// Syncthing's default, and the floor keeps a small disk from being
/// filled to its last megabytes, where the system and other programs
/// start failing (and SQLite needs room for its write-ahead log and a
/// checkpoint to free anything at all).
public struct DiskReserve: Hashable, Sendable, CustomStringConvertible {
    /// Percent of the file system's size (0...100).
    public var percent: Double
    /// At least this many bytes.
    public var floor: Int

    public init(percent: Double, floor: Int) {
        self.percent = percent
        self.floor = floor
    }

    public static let standard = DiskReserve(percent: 1, floor: 50 * 1_048_576)
    /// Nothing reserved.
    public static let none = DiskReserve(percent: 0, floor: 0)

    /// Most of a file system the floor may take, in percent.
    public static let floorShareLimit = 5.0

    /// The bytes kept free on a file system of `fileSystemBytes`.
    public func bytes(ofFileSystem fileSystemBytes: Int) -> Int {
        let share = Int(Double(fileSystemBytes) * percent / 100)
        let cappedFloor = percent == 0 ? floor : min(floor, Int(Double(fileSystemBytes) * Self.floorShareLimit / 100))
        return max(share, cappedFloor)
    }

    public var description: String {
        switch (percent, floor) {
        case (0, 0): "none"
        case (0, _): "\(Self.mebibytes(floor))"
        case (_, 0): "\(Self.number(percent))%"
        default: "\(Self.number(percent))% or \(Self.mebibytes(floor)), whichever is larger"
        }
    }

    static func mebibytes(_ bytes: Int) -> String {
        bytes % 1_048_576 == 0 ? "\(bytes / 1_048_576) MiB" : "\(bytes) bytes"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
