import ChatCore
import Foundation
import Glibc
@testable import P2PTransport
import Testing
import TestSupport

/// A 1 GiB file over the transfer link on loopback, byte for byte. The
/// source is sparse (ftruncate: no disk, and reads of its holes are cheap)
/// with marked bytes at record edges, in the middle and at the end, so a
/// record written at the wrong offset or a last record cut short shows.
/// The receiver's copy is real: 1 GiB in the scratch directory until the
/// test ends. One test: it costs a few seconds of CPU (hashing on both
/// sides, the cipher both ways).
@Suite(.realTime) struct GibibyteTransferTests {
    static let size: Int64 = 1 << 30

    /// Offsets and the byte written there; every other byte is zero.
    static let marks: [(offset: Int64, byte: UInt8)] = [
        (0, 0x4C), (Int64(FileTransferLimits.chunkBytes) - 1, 0x01), (Int64(FileTransferLimits.chunkBytes), 0x02),
        (size / 2 + 12_345, 0x03), (size - Int64(FileTransferLimits.chunkBytes), 0x04), (size - 1, 0x05),
    ]

    @Test func aSparseGibibyteArrivesByteExact() async throws {
        let scratch = try ScratchDirectory()
        let source = scratch.path + "/sparse.bin"
        try Self.makeSparse(source)
        var info = stat()
        #expect(stat(source, &info) == 0)
        #expect(Int64(info.st_blocks) * 512 < 1 << 20, "the source takes no disk")

        let sender = try FileTransferLinkTests.Side(seed: 1), receiver = try FileTransferLinkTests.Side(seed: 2)
        defer { sender.service.stop(); receiver.service.stop() }
        let request = try FileTransferLinkTests.offer(source, from: sender, to: receiver, partial: scratch.path + "/part")
        #expect(request.size == Self.size)
        receiver.service.fetch(request)
        try #require(await waitUntil("1 GiB received", within: .seconds(180)) {
            receiver.saw { $0 == .received(request.id) } || receiver.failure(request.id) != nil
        })
        #expect(receiver.failure(request.id) == nil)
        #expect(await waitUntil("sender told") { sender.saw { $0 == .sent(request.id) } })
        #expect(receiver.service.counters.bytesReceived == Self.size)

        // Byte for byte, on top of the receiver's own SHA-256 check.
        #expect(try Self.firstDifference(source, request.partialPath) == nil)
        let copy = try FileHandle(forReadingFrom: URL(fileURLWithPath: request.partialPath))
        defer { try? copy.close() }
        for mark in Self.marks {
            try copy.seek(toOffset: UInt64(mark.offset))
            #expect(try copy.read(upToCount: 1) == Data([mark.byte]), "byte at \(mark.offset)")
        }
    }

    static func makeSparse(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        for mark in marks {
            var byte = mark.byte
            guard pwrite(fd, &byte, 1, off_t(mark.offset)) == 1 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
    }

    /// The first offset where the two files differ (or one ends), or nil.
    static func firstDifference(_ a: String, _ b: String) throws -> Int64? {
        let fa = open(a, O_RDONLY), fb = open(b, O_RDONLY)
        defer { close(fa); close(fb) }
        guard fa >= 0, fb >= 0 else { throw POSIXError(.ENOENT) }
        let chunk = 1 << 20
        let bufferA = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        let bufferB = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { bufferA.deallocate(); bufferB.deallocate() }
        var offset: Int64 = 0
        while true {
            let na = read(fa, bufferA.baseAddress, chunk), nb = read(fb, bufferB.baseAddress, chunk)
            guard na >= 0, nb >= 0 else { throw POSIXError(.EIO) }
            // Regular files on loopback: a short read is the end.
            if na != nb || memcmp(bufferA.baseAddress!, bufferB.baseAddress!, na) != 0 {
                let a = bufferA.prefix(na), b = bufferB.prefix(nb)
                return offset + Int64(zip(a, b).prefix { $0 == $1 }.count)
            }
            if na == 0 { return nil }
            offset += Int64(na)
        }
    }
}
