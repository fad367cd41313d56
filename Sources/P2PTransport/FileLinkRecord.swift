import ChatCore
import Foundation

/// One record's plaintext on a transfer link (PROTOCOL.md, "The transfer
/// link"): a kind byte, then its body; integers are u64 big-endian.
enum FileLinkRecord: Equatable, Sendable {
    case start(offset: Int64, size: Int64)
    case data(offset: Int64, bytes: [UInt8])
    case end
    case fail(String)
    case verified

    static let maxReasonBytes = 512

    enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(String)
        var description: String {
            switch self { case .malformed(let why): "malformed transfer record: \(why)" }
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .start(let offset, let size): [0x01] + Self.u64(offset) + Self.u64(size)
        case .data(let offset, let bytes): [0x02] + Self.u64(offset) + bytes
        case .end: [0x03]
        case .fail(let reason): [0x04] + Array(reason.utf8.prefix(Self.maxReasonBytes))
        case .verified: [0x05]
        }
    }

    /// Writes a data record's header in front of `count` file bytes
    /// already in `buffer[9...]` (so a chunk is read from disk once, into
    /// place).
    static func dataHeader(offset: Int64, into buffer: inout [UInt8]) {
        buffer[0] = 0x02
        for index in 0..<8 { buffer[1 + index] = UInt8(truncatingIfNeeded: UInt64(offset) >> (56 - 8 * UInt64(index))) }
    }

    static let dataHeaderBytes = 9

    init(decoding plain: [UInt8]) throws(Failure) {
        guard let kind = plain.first else { throw .malformed("empty record") }
        switch kind {
        case 0x01:
            guard plain.count == 17 else { throw .malformed("start of \(plain.count) bytes") }
            self = .start(offset: Self.int64(plain, at: 1), size: Self.int64(plain, at: 9))
        case 0x02:
            guard plain.count > 9 else { throw .malformed("data record without bytes") }
            self = .data(offset: Self.int64(plain, at: 1), bytes: Array(plain[9...]))
        case 0x03:
            guard plain.count == 1 else { throw .malformed("end with a body") }
            self = .end
        case 0x04:
            guard plain.count <= 1 + Self.maxReasonBytes else { throw .malformed("fail reason too long") }
            self = .fail(String(decoding: plain[1...], as: UTF8.self))
        case 0x05:
            guard plain.count == 1 else { throw .malformed("verified with a body") }
            self = .verified
        default:
            throw .malformed("unknown kind \(kind)")
        }
    }

    static func u64(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * UInt64($0))) }
    }

    static func int64(_ bytes: [UInt8], at start: Int) -> Int64 {
        var value: UInt64 = 0
        for index in start..<(start + 8) { value = value << 8 | UInt64(bytes[index]) }
        return Int64(bitPattern: value)
    }
}

/// The receiver's request inside its handshake message 3: the transfer id
/// and the offset to start from (24 bytes).
struct FileLinkRequest: Equatable, Sendable {
    var id: MessageID
    var offset: Int64

    static let byteCount = 24

    var bytes: [UInt8] {
        let (high, low) = id.halves
        return FileLinkRecord.u64(Int64(bitPattern: high)) + FileLinkRecord.u64(Int64(bitPattern: low)) + FileLinkRecord.u64(offset)
    }

    init(id: MessageID, offset: Int64) {
        self.id = id
        self.offset = offset
    }

    init(decoding bytes: [UInt8]) throws(FileLinkRecord.Failure) {
        guard bytes.count == Self.byteCount else { throw .malformed("request of \(bytes.count) bytes, 24 expected") }
        let b = bytes
        let offset = FileLinkRecord.int64(bytes, at: 16)
        guard offset >= 0 else { throw .malformed("negative offset") }
        id = MessageID(uuid: UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                         b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        self.offset = offset
    }
}
